import * as fs from 'node:fs';
import * as os from 'node:os';
import { isSameProcess, processStart } from './atomicWrite';
import { StateLockTimeoutError } from './errors';

interface LockOwner {
  pid: number;
  host: string;
  since: number;
  /** The owner's start time (processStart): a dead owner's reused pid is not taken for it. Older files lack it. */
  start?: string;
}

export interface LockOptions {
  timeoutMs?: number;
  /** A lock from another host is presumed stale after this long (we cannot probe its pid). */
  foreignStaleMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** This process's start time, read once: every lock file it writes records it. */
const ownStart = processStart(process.pid);

/**
 * An exclusive lock file (O_EXCL) holding its owner's pid and host. Two VS Code windows and
 * the CLI on one workspace serialize their state transactions through it. A lock whose owner
 * died is taken over; the takeover itself is serialized by a second "breaker" lock so two
 * waiters can never both delete and recreate it.
 */
export class FileLock {
  private held = false;

  constructor(readonly file: string, private readonly opts: LockOptions = {}) {}

  async acquire(): Promise<void> {
    const timeoutMs = this.opts.timeoutMs ?? 30_000;
    const start = Date.now();
    let delay = 1;
    for (;;) {
      if (this.tryCreate(this.file)) {
        this.held = true;
        return;
      }
      if (this.isStale(this.file)) this.breakStale();
      else if (Date.now() - start > timeoutMs) {
        throw new StateLockTimeoutError(this.file, describe(readOwner(this.file)), Date.now() - start);
      }
      await sleep(delay);
      delay = Math.min(delay * 2, 25);
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    fs.rmSync(this.file, { force: true });
  }

  private tryCreate(file: string): boolean {
    const owner: LockOwner = { pid: process.pid, host: os.hostname(), since: Date.now(), ...(ownStart ? { start: ownStart } : {}) };
    try {
      fs.writeFileSync(file, JSON.stringify(owner), { flag: 'wx', mode: 0o600 });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  }

  private isStale(file: string): boolean {
    const owner = readOwner(file);
    if (owner === 'missing') return false; // released meanwhile: just retry
    if (owner === 'unreadable') return ageMs(file) > 2_000; // half-written by a killed owner
    if (owner.host === os.hostname()) return !isSameProcess(owner.pid, owner.start);
    return Date.now() - owner.since > (this.opts.foreignStaleMs ?? 120_000);
  }

  private breakStale(): void {
    const breaker = `${this.file}.break`;
    if (!this.tryCreate(breaker)) {
      // Another waiter is breaking it; a breaker left by a killed process expires quickly.
      if (ageMs(breaker) > 5_000) fs.rmSync(breaker, { force: true });
      return;
    }
    try {
      if (this.isStale(this.file)) fs.rmSync(this.file, { force: true });
    } finally {
      fs.rmSync(breaker, { force: true });
    }
  }
}

/** The pid holding the lock `file`, if it is a live process of this host (else none, or unknown). */
export function liveLocalHolder(file: string): number | undefined {
  return liveLocalOwner(file)?.pid;
}

/** As liveLocalHolder, with the start time the holder recorded (to check it again before a signal). */
export function liveLocalOwner(file: string): { pid: number; start?: string } | undefined {
  const owner = readOwner(file);
  if (typeof owner !== 'object' || owner.host !== os.hostname() || !isSameProcess(owner.pid, owner.start)) return undefined;
  return { pid: owner.pid, ...(owner.start !== undefined ? { start: owner.start } : {}) };
}

function readOwner(file: string): LockOwner | 'missing' | 'unreadable' {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return 'missing';
  }
  try {
    const o = JSON.parse(text) as LockOwner;
    if (o.start !== undefined && (typeof o.start !== 'string' || !/^\d{1,20}$/.test(o.start))) return 'unreadable';
    return typeof o.pid === 'number' && typeof o.host === 'string' ? o : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function describe(o: LockOwner | 'missing' | 'unreadable'): string {
  return typeof o === 'string' ? `an unknown owner (${o})` : `pid ${o.pid} on ${o.host}`;
}
