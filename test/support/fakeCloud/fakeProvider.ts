// An in-process Provider with real state machines and injectable faults (see model.ts).
import * as os from 'node:os';
import type {
  ClusterInfo, ClusterRef, InstanceInfo, Provider, RunRequest, RunResult,
} from '../../../src/core/clouds/provider';
import { ProviderError, TAG_UID } from '../../../src/core/clouds/provider';
import { realClock, type Clock } from '../../../src/core/provision/clock';
import type { TaggedListing, TerminateAnswer } from '../../../src/core/clouds/provider';
import type { CloudEvent, FakeCloudState, FakeInstance, FakeOp, FaultRule } from './model';
import { accountOf, advance, isLiveStatus } from './model';
import { faultError, takeFault } from './faults';
import { memoryStorage, type FakeCloudStorage } from './storage';

export interface FakeProviderOptions {
  cloud?: string;
  storage?: FakeCloudStorage;
  clock?: Clock;
  /** Called at every call point (kill -9 hooks). */
  onCall?(op: FakeOp, at: 'before' | 'after', n: number): void;
  /** Clock ms each call takes (lets concurrent operations interleave). */
  latencyMs?: number;
}

export class FakeProvider implements Provider {
  readonly cloud: string;
  readonly storage: FakeCloudStorage;
  readonly clock: Clock;

  constructor(private readonly opts: FakeProviderOptions = {}) {
    this.cloud = opts.cloud ?? 'fake';
    this.storage = opts.storage ?? memoryStorage();
    this.clock = opts.clock ?? realClock;
  }

  /** Adds fault rules (tests). */
  inject(...rules: FaultRule[]): void {
    this.mutate((s) => s.faults.push(...rules));
  }

  /** Schedules a change the cloud makes by itself, `inMs` from now (see CloudEvent). */
  cloudActs(action: CloudEvent['action'], match: { uid?: string; zone?: string; ids?: string[] }, inMs = 0): void {
    this.mutate((s) => void (s.cloudEvents = [...(s.cloudEvents ?? []), { ...match, action, at: this.clock.now() + inMs }]));
  }

  /** Turns on EC2's refusal to stop pending instances (IncorrectInstanceState). */
  refuseStopWhilePending(on = true): void {
    this.mutate((s) => void (s.stopPendingRefused = on));
  }

  /** Every instance as the cloud really holds it (not as listings show it). */
  truth(): FakeInstance[] {
    return this.mutate((s) => s.instances.map((i) => ({ ...i })));
  }

  /** The user switches credentials (profile, gcloud config, az account set) to `account`. */
  switchAccount(account: string): void {
    this.mutate((s) => (s.account = account));
  }

  /** The account the current credentials point at; like every call, it can fail. */
  identity(): Promise<string> {
    return this.op('identity', undefined, (s) => accountOf(s));
  }

  zonesOf(region: string): string[] {
    return ['a', 'b', 'c'].map((z) => `${region}${z}`);
  }

  runInstances(req: RunRequest): Promise<RunResult> {
    const zone = req.placement.zone ?? `${req.placement.region ?? 'fake-1'}a`;
    return this.op('runInstances', zone, (s, now, late) => {
      checkAccount(s, req.account);
      const mine = s.instances.filter((i) => i.tags[TAG_UID] === req.uid && isLiveStatus(i.status));
      // As EC2: an instance still stopping cannot be started yet.
      if (mine.some((i) => i.status === 'stopping')) throw new ProviderError('transient', 'fake: an instance is still stopping; start it once stopped');
      const resumed: string[] = [];
      for (const i of mine) {
        if (i.status === 'stopped') {
          Object.assign(i, { status: 'pending', since: now, next: undefined });
          resumed.push(i.id);
        }
      }
      const created: string[] = [];
      // A partial create makes only some of the missing nodes (the rest fail, or an "after"
      // rule throws once these exist).
      const partial = takeFault(s, 'runInstances', 'partial', zone);
      const want = partial ? Math.min(req.numNodes, mine.length + (partial.nodes ?? 1)) : req.numNodes;
      const lateMs = late?.effect === 'late' ? late.lateMs ?? 0 : 0;
      for (let n = mine.length; n < want; n++) {
        const id = `i-${String(s.nextId++).padStart(6, '0')}`;
        s.instances.push({
          id, region: req.placement.region ?? 'fake-1', zone, tags: { ...req.tags }, createdAt: now,
          visibleAt: now + (late?.scope === 'sweep' ? 0 : lateMs), status: 'pending', since: now, costPerHour: req.placement.useSpot ? 0.3 : 1,
          ...(late?.scope ? { sweepVisibleAt: now + (late.scope === 'query' ? 0 : lateMs) } : {}),
          account: accountOf(s),
        });
        created.push(id);
      }
      return { created, resumed };
    });
  }

  queryInstances(ref: ClusterRef): Promise<InstanceInfo[]> {
    return this.op('queryInstances', ref.zone, (s, now) => this.visible(s, now, ref.account).filter((i) => i.tags[TAG_UID] === ref.uid).map(info));
  }

  listTagged(account?: string): Promise<TaggedListing> {
    return this.op('listTagged', undefined, (s, now) => {
      checkAccount(s, account);
      // The sweep's own visibility (a 'late' fault may be scoped to the query or the sweep).
      const instances = s.instances.filter((i) => now >= (i.sweepVisibleAt ?? i.visibleAt) && accountOf(i) === accountOf(s));
      return { account: accountOf(s), instances: instances.map(info), listed: ['fake-1'], unlisted: [] };
    });
  }

  stopInstances(ref: ClusterRef): Promise<void> {
    return this.op('stopInstances', ref.zone, (s, now, noop) => {
      if (noop?.effect === 'noop') return;
      const targets = this.visible(s, now, ref.account).filter((i) => i.tags[TAG_UID] === ref.uid && (i.status === 'running' || i.status === 'pending'));
      // As EC2: one pending instance fails the whole call, and nothing is stopped.
      const pending = targets.find((i) => i.status === 'pending');
      if (s.stopPendingRefused && pending) throw new ProviderError('config', `fake: IncorrectInstanceState: instance ${pending.id} is pending and cannot be stopped`);
      for (const i of targets) i.next = { status: 'stopping', at: now + s.delays.apiLag };
    });
  }

  startInstances(ref: ClusterRef): Promise<void> {
    return this.op('startInstances', ref.zone, (s, now) => {
      checkAccount(s, ref.account);
      for (const i of s.instances) if (accountOf(i) === accountOf(s) && i.tags[TAG_UID] === ref.uid && i.status === 'stopped') Object.assign(i, { status: 'pending', since: now, next: undefined });
    });
  }

  terminateInstances(ref: ClusterRef, ids?: string[]): Promise<TerminateAnswer | void> {
    return this.op('terminateInstances', ref.zone, (s, now, noop) => {
      if (noop?.effect === 'noop') return;
      // By tag, only what the cluster query shows (as real clouds); by id, as EC2: what its
      // account-wide view knows (a 'late' fault without scope hides it there too), of this uid.
      const pool = ids
        ? this.visible(s, Infinity, ref.account).filter((i) => ids.includes(i.id) && i.tags[TAG_UID] === ref.uid && now >= (i.sweepVisibleAt ?? i.visibleAt))
        : this.visible(s, now, ref.account).filter((i) => i.tags[TAG_UID] === ref.uid);
      if (!ids) {
        for (const i of pool) if (isLiveStatus(i.status) && i.next?.status !== 'terminating') i.next = { status: 'terminating', at: now + s.delays.apiLag };
        return undefined;
      }
      // As EC2's TerminateInstances answer: each id's state as of the call (shutting-down), so
      // the change is made at once rather than after the listing's lag.
      for (const i of pool) if (isLiveStatus(i.status)) Object.assign(i, { status: 'terminating', since: now, next: undefined });
      return { ending: pool.map((i) => i.id) };
    });
  }

  async waitInstances(ref: ClusterRef, state: 'running' | 'stopped' | 'terminated', timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const end = this.clock.now() + timeoutMs;
    while (!signal?.aborted) {
      const all = await this.queryInstances(ref);
      if (all.length && all.every((i) => i.status === state)) return;
      if (this.clock.now() > end) throw new ProviderError('transient', `fake: not ${state} after ${timeoutMs} ms`);
      await this.clock.sleep(500, signal);
    }
  }

  clusterInfo(ref: ClusterRef): Promise<ClusterInfo> {
    return this.op('clusterInfo', ref.zone, (s, now) => {
      const running = this.visible(s, now, ref.account).filter((i) => i.tags[TAG_UID] === ref.uid && i.status === 'running').sort((a, b) => a.id.localeCompare(b.id));
      if (!running.length) throw new ProviderError('transient', `fake: no running instance of ${ref.uid}`);
      // Every fake instance is this machine.
      const [head, ...workers] = running.map((i) => ({ id: i.id, address: '127.0.0.1' }));
      return { head, workers, sshUser: safeUser() };
    });
  }

  openPorts(ref: ClusterRef): Promise<void> {
    return this.op('openPorts', ref.zone, (s) => checkAccount(s, ref.account));
  }

  /**
   * What the current credentials can see: their own account only, as on AWS. A call about
   * another account is refused, never answered with an empty list.
   */
  private visible(s: FakeCloudState, now: number, account?: string): FakeInstance[] {
    checkAccount(s, account);
    return s.instances.filter((i) => now >= i.visibleAt && accountOf(i) === accountOf(s));
  }

  /** One call: faults before, the change, faults after; state saved even when "after" throws. */
  private async op<T>(op: FakeOp, zone: string | undefined, fn: (s: FakeCloudState, now: number, rule?: FaultRule) => T): Promise<T> {
    if (this.opts.latencyMs) await this.clock.sleep(this.opts.latencyMs);
    const slow = this.mutate((st) => takeFault(st, op, 'slow', zone));
    if (slow?.delayMs) await this.clock.sleep(slow.delayMs);
    const s = this.storage.load();
    s.calls++;
    this.opts.onCall?.(op, 'before', s.calls);
    const before = takeFault(s, op, 'before', zone);
    const err = before && faultError(before, op, zone);
    if (err) {
      this.storage.save(s);
      throw err;
    }
    const now = this.clock.now();
    advance(s, now);
    const modifier = takeFault(s, op, 'modifier', zone);
    const afterRule = takeFault(s, op, 'after', zone);
    let result: T;
    try {
      result = fn(s, now, modifier);
    } finally {
      this.storage.save(s);
    }
    this.opts.onCall?.(op, 'after', s.calls);
    const errAfter = afterRule && faultError(afterRule, op, zone);
    if (errAfter) throw errAfter;
    return result;
  }

  private mutate<T>(fn: (s: FakeCloudState) => T): T {
    const s = this.storage.load();
    advance(s, this.clock.now());
    const out = fn(s);
    this.storage.save(s);
    return out;
  }
}

function checkAccount(s: FakeCloudState, account: string | undefined): void {
  if (account && account !== accountOf(s)) {
    throw new ProviderError('auth', `unknown — credentials point at fake account ${accountOf(s)}, the cluster lives in ${account}`, 'switch back to that account');
  }
}

function info(i: FakeInstance): InstanceInfo {
  return {
    id: i.id, status: i.status, region: i.region, zone: i.zone, launchedAt: i.createdAt, tags: { ...i.tags },
    instanceType: 'fake.small', costPerHour: i.costPerHour, privateIp: '127.0.0.1',
  };
}

function safeUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'root';
  }
}
