// The fake cloud's state: plain JSON, so it can live in a file and a fresh process (after a
// kill -9) sees the same "cloud". Instance states advance lazily from timestamps on every
// read, so no timers are needed and a killed process loses nothing.
import { TAG_UID, type InstanceStatus } from '../../../src/core/clouds/provider';

export interface FakeInstance {
  id: string;
  region: string;
  zone: string;
  tags: Record<string, string>;
  createdAt: number;
  /** Listings show it only from this time on (eventually consistent APIs). */
  visibleAt: number;
  /** The account-wide listing (the sweep) shows it from this time on; absent: `visibleAt`. */
  sweepVisibleAt?: number;
  status: InstanceStatus;
  /** When `status` was entered, or will be entered for a scheduled (lagging) change. */
  since: number;
  /** A stop/terminate accepted but not yet applied: applied at `since` of the next state. */
  next?: { status: InstanceStatus; at: number };
  costPerHour: number;
  /** The account it lives in (absent in states saved before accounts: DEFAULT_ACCOUNT). */
  account?: string;
}

/** Model ms; the defaults are the "fake provider's default delays" the figures quote. */
export interface FakeDelays {
  boot: number;
  stop: number;
  shutdown: number;
  /** How long after a stop/terminate call the instance shows the new state. */
  apiLag: number;
}

export const DEFAULT_DELAYS: FakeDelays = { boot: 2_000, stop: 3_000, shutdown: 3_000, apiLag: 1_000 };

export type FakeOp =
  | 'runInstances' | 'queryInstances' | 'stopInstances' | 'startInstances' | 'terminateInstances'
  | 'waitInstances' | 'clusterInfo' | 'listTagged' | 'openPorts' | 'identity';

/**
 * One injected fault. `times` counts down per match (-1 = always). Effects: throw an untyped
 * exception, a typed transient/capacity/auth error, `noop` (stop/terminate succeed but do
 * nothing), `late` (runInstances' instances are invisible for `lateMs`), `slow` (the call
 * waits `delayMs` before acting, so instances are created late in a long call), typed
 * `quota`/`config` errors, and `partial` (runInstances creates only `nodes` of the missing
 * nodes; pair it with an "after" error rule for a create that fails half-way).
 */
export interface FaultRule {
  op: FakeOp;
  at: 'before' | 'after';
  effect: 'throw' | 'transient' | 'capacity' | 'auth' | 'noop' | 'late' | 'slow' | 'quota' | 'config' | 'partial';
  times: number;
  zone?: string;
  lateMs?: number;
  /** `late`: only the cluster query ('query') or only the sweep's listing ('sweep') lags. */
  scope?: 'query' | 'sweep';
  /** `partial`: how many nodes this call creates. */
  nodes?: number;
  /** `slow`: the call takes this long (clock ms) before it acts. */
  delayMs?: number;
}

/**
 * A change the cloud makes on its own at `at` (model ms) to the instances of a uid and/or a
 * zone (or the ids given; none: every instance): spot preemption and cloud-initiated terminate (→ terminating), a stop
 * (running/pending → stopping), a stopped instance restarting (→ pending).
 */
export interface CloudEvent {
  at: number;
  action: 'preempt' | 'terminate' | 'stop' | 'restart';
  uid?: string;
  zone?: string;
  ids?: string[];
}

export interface FakeCloudState {
  nextId: number;
  instances: FakeInstance[];
  faults: FaultRule[];
  delays: FakeDelays;
  /** Every call made, in order (op:at), for kill points and debugging. */
  calls: number;
  /** Changes the cloud will make by itself (absent in old files: none). */
  cloudEvents?: CloudEvent[];
  /** As EC2: StopInstances fails (IncorrectInstanceState) when a named instance is pending. */
  stopPendingRefused?: boolean;
  /** The account the current credentials point at (a user switching profile changes it). */
  account?: string;
}

export const DEFAULT_ACCOUNT = 'acct-1';

export function accountOf(x: { account?: string }): string {
  return x.account ?? DEFAULT_ACCOUNT;
}

export function emptyState(delays: Partial<FakeDelays> = {}): FakeCloudState {
  return { nextId: 1, instances: [], faults: [], delays: { ...DEFAULT_DELAYS, ...delays }, calls: 0 };
}

/** Moves every instance along its state machine up to `now`, with the cloud's own changes. */
export function advance(s: FakeCloudState, now: number): void {
  const due = (s.cloudEvents ?? []).filter((e) => e.at <= now).sort((a, b) => a.at - b.at);
  if (due.length) s.cloudEvents = s.cloudEvents!.filter((e) => !due.includes(e));
  for (const e of due) {
    advanceTo(s, e.at);
    applyCloudEvent(s, e);
  }
  advanceTo(s, now);
}

function applyCloudEvent(s: FakeCloudState, e: CloudEvent): void {
  for (const i of s.instances) {
    const hit = e.ids ? e.ids.includes(i.id) : (e.uid === undefined || i.tags[TAG_UID] === e.uid) && (e.zone === undefined || i.zone === e.zone);
    if (!hit) continue;
    const to: InstanceStatus | undefined =
      e.action === 'preempt' || e.action === 'terminate' ? (isLiveStatus(i.status) ? 'terminating' : undefined)
        : e.action === 'stop' ? (i.status === 'running' || i.status === 'pending' ? 'stopping' : undefined)
          : i.status === 'stopped' ? 'pending' : undefined;
    if (to) Object.assign(i, { status: to, since: e.at, next: undefined });
  }
}

function advanceTo(s: FakeCloudState, now: number): void {
  for (const i of s.instances) {
    for (let guard = 0; guard < 6; guard++) {
      const nat = natural(s.delays, i.status);
      const natAt = nat ? i.since + nat.after : Infinity;
      if (nat && now >= natAt && (!i.next || natAt <= i.next.at)) {
        i.status = nat.to;
        i.since = natAt;
      } else if (i.next && now >= i.next.at) {
        // A lagging stop/terminate never brings back what is already going away.
        if (isLiveStatus(i.status)) {
          i.status = i.next.status;
          i.since = i.next.at;
        }
        i.next = undefined;
      } else break;
    }
  }
}

function natural(d: FakeDelays, st: InstanceStatus): { to: InstanceStatus; after: number } | undefined {
  if (st === 'pending') return { to: 'running', after: d.boot };
  if (st === 'stopping') return { to: 'stopped', after: d.stop };
  if (st === 'terminating') return { to: 'terminated', after: d.shutdown };
  return undefined;
}

/** Live = costs money or may come back. */
export function isLiveStatus(st: InstanceStatus): boolean {
  return st !== 'terminating' && st !== 'terminated';
}
