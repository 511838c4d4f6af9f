import type { ClusterRecord, EventRecord } from '../state';

/** How long a cluster's instances ran and how long they sat stopped (disk still billed). */
export interface BilledTime {
  runningMs: number;
  stoppedMs: number;
  /** When the cluster ended (its row was deleted after proof); absent while it lives. */
  endedAt?: number;
}

/**
 * Events that end an incarnation: `ended` (history.ts, written as the row is deleted after
 * proof), and for older logs the events that came with such a delete.
 */
export const END_KINDS = new Set(['ended', 'down', 'refresh-removed', 'purge']);

function uidOf(e: EventRecord): string | undefined {
  try {
    const d = e.data ? (JSON.parse(e.data) as { uid?: unknown }) : undefined;
    return typeof d?.uid === 'string' ? d.uid : undefined;
  } catch {
    return undefined;
  }
}

/** The billing state an event moves to, if it says one. */
function stateAfter(e: EventRecord): 'running' | 'stopped' | undefined {
  if (e.kind === 'status') {
    try {
      const to = (JSON.parse(e.data ?? '{}') as { to?: unknown }).to;
      return to === 'STOPPED' ? 'stopped' : to === 'UP' || to === 'INIT' ? 'running' : undefined;
    } catch {
      return undefined;
    }
  }
  // Rows written before status events: the provision loop's own event kinds.
  if (e.kind === 'stopped') return 'stopped';
  if (e.kind === 'attempt' && e.message.startsWith('starting')) return 'running';
  if (e.kind === 'refresh' && e.message.startsWith('every instance is stopped')) return 'stopped';
  return undefined;
}

/**
 * Running and stopped time of one incarnation (`uid`, launched at `launchedAt`) from the
 * events log: running from the intent (instances may bill from their creation call on) until
 * a stop, stopped until a start, to `now` or the event that ended it. Events of another uid
 * under the same name are skipped; an event before the launch belongs to an older one.
 */
export function billedTime(events: readonly EventRecord[], row: Pick<ClusterRecord, 'uid' | 'launched_at'>, now: number): BilledTime {
  const mine = events.filter((e) => e.ts >= row.launched_at && (uidOf(e) ?? row.uid) === row.uid).sort((a, b) => a.id - b.id);
  let state: 'running' | 'stopped' = 'running';
  let since = row.launched_at;
  const out: BilledTime = { runningMs: 0, stoppedMs: 0 };
  const add = (until: number) => {
    const ms = Math.max(0, until - since);
    if (state === 'running') out.runningMs += ms;
    else out.stoppedMs += ms;
    since = Math.max(since, until);
  };
  for (const e of mine) {
    if (END_KINDS.has(e.kind)) {
      add(e.ts);
      out.endedAt = e.ts;
      return out;
    }
    const next = stateAfter(e);
    if (next && next !== state) {
      add(e.ts);
      state = next;
    }
  }
  add(now);
  return out;
}
