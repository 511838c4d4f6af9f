// The background clean-ups of terminated clusters (security group, bucket role), one watcher
// per uid, and what a caller waiting for one hears of it.
import type { EC2Client } from '@aws-sdk/client-ec2';
import { cleanupGroupsWhenTerminated } from './cleanup';
import { instancesOfUid } from './uidMatch';

export interface WatcherOptions {
  pollMs: number;
  timeoutMs: number;
  log(message: string): void;
  /** Deletes the uid's instance profile and role, naming in `deleted` what it deleted; true when none of them is left. */
  alsoDelete(uid: string, deleted: string[]): Promise<boolean>;
}

export type CleanupOutcome = 'deleted' | 'live' | 'superseded';

export class CleanupWatchers {
  /** Per uid: bumped by each launch so an older clean-up stands down. */
  private readonly generation = new Map<string, number>();
  private readonly running = new Map<string, Promise<CleanupOutcome>>();
  /** Per uid: who waits for its clean-up and wants to hear why it is still waiting. */
  private readonly listeners = new Map<string, Set<(m: string) => void>>();
  /** Per uid: what its last watcher deleted (a down that asks after it finished still names it). */
  private readonly deleted = new Map<string, string[]>();

  constructor(private readonly opts: WatcherOptions) {}

  /** A launch of the uid begins: a clean-up under way stands down (it must finish first, see `current`). */
  launching(uid: string): void {
    this.generation.set(uid, (this.generation.get(uid) ?? 0) + 1);
  }

  /** The clean-up under way for the uid, if any (a launch waits for it before reusing the group). */
  current(uid: string): Promise<CleanupOutcome> | undefined {
    return this.running.get(uid);
  }

  /** Starts the uid's watcher unless one runs; returns it. */
  schedule(ec2: EC2Client, uid: string): Promise<CleanupOutcome> {
    const existing = this.running.get(uid);
    if (existing) return existing; // one watcher per uid is enough
    const gen = this.generation.get(uid) ?? 0;
    // One list per watcher: a clean-up that threw half-way is tried again at the next poll, and
    // what the first try deleted (the profile) must still be named by the down.
    const kinds: string[] = [];
    const p = cleanupGroupsWhenTerminated({
      ec2, uid, describe: () => instancesOfUid(ec2, uid),
      pollMs: this.opts.pollMs, timeoutMs: this.opts.timeoutMs,
      current: () => (this.generation.get(uid) ?? 0) === gen, log: (m) => this.opts.log(m),
      alsoDelete: () => {
        this.deleted.set(uid, kinds);
        return this.opts.alsoDelete(uid, kinds);
      },
      waiting: (m) => this.listeners.get(uid)?.forEach((f) => f(m)),
    }).finally(() => this.running.delete(uid));
    this.running.set(uid, p);
    return p;
  }

  /** Waits for the uid's watcher, hearing its waits, at most `timeoutMs`; 'timeout' when it is still going. */
  async wait(ec2: EC2Client, uid: string, timeoutMs: number, hear: (m: string) => void): Promise<CleanupOutcome | 'timeout'> {
    const set = this.listeners.get(uid) ?? new Set();
    this.listeners.set(uid, set.add(hear));
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
      return await Promise.race([this.schedule(ec2, uid), timeout]);
    } finally {
      clearTimeout(timer);
      set.delete(hear);
      if (!set.size) this.listeners.delete(uid);
    }
  }

  /** What the uid's watcher deleted (and forgets it: asked once, by the down that waits). */
  takeDeleted(uid: string): string[] {
    const d = this.deleted.get(uid) ?? [];
    this.deleted.delete(uid);
    return d;
  }

  /** Resolves when every clean-up has finished (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running.values()]);
  }
}
