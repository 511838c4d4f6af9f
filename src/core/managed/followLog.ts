// Following a managed job's output across its recoveries, for the CLI (`jobs logs`, `jobs
// launch`) and the editor's log panel alike: the job's agent job on whichever cluster it runs
// now, then, after a recovery, the next cluster's, with a marked line between; ends with the
// job. How one cluster's log is read is the caller's (ops logs, or the agent client by offset).
import type { ManagedJobsClient } from './client';
import type { ManagedJob } from './jobRows';
import { recoveryMarker } from './keptLogs';
import { isTerminal } from './states';

/** Reads cluster `seg.cluster`'s agent job from byte `from` until it ends or `signal` aborts. */
export type SegmentFollower = (
  seg: { cluster: string; agentJobId: number }, from: number, onChunk: (d: Buffer) => void, signal: AbortSignal,
) => Promise<void>;

/**
 * Where a follow is: kept by a caller that may stop and resume (the panel's Retry), so the
 * resumed follow continues the same cluster's log at the next unread byte.
 */
export interface FollowState {
  /** `<cluster>:<agent job>` being followed. */
  segment?: string;
  /** Bytes of that segment already passed on. */
  offset: number;
  /** The segment was read to its end. */
  finished?: boolean;
  /** The kept output (clusters already torn down) was passed on. */
  keptShown?: boolean;
  /** The segment's read failed (its cluster may have been torn down under it). */
  readFailed?: boolean;
}

export interface FollowOptions {
  follow: SegmentFollower;
  onOutput(d: Buffer): void;
  /** A recovery moved the job to another cluster: one line, no newline. */
  onMarker(line: string): void;
  /** Every look at the job (status lines). */
  onJob?(j: ManagedJob): void;
  signal: AbortSignal;
  pollMs?: number;
  state?: FollowState;
  log?(m: string): void;
}

/** How long an ended job's output may take to be kept (the controller reads it for up to 60 s). */
const KEPT_WAIT_MS = 75_000;

/** Resolves with the ended job, or undefined when `signal` aborted first. */
export async function followManagedLog(client: Pick<ManagedJobsClient, 'job' | 'keptLog'>, id: number, o: FollowOptions): Promise<ManagedJob | undefined> {
  const st = o.state ?? { offset: 0 };
  let keptBy: number | undefined;
  while (!o.signal.aborted) {
    const j = await client.job(id);
    if (!j) throw new Error(`there is no managed job ${id}`);
    o.onJob?.(j);
    // Any status with an agent job: a short run may have ended before this look, and its
    // cluster is kept until torn down, so its log can still be read whole.
    if (j.clusterName && j.agentJobId !== null) {
      const key = `${j.clusterName}:${j.agentJobId}`;
      if (key !== st.segment) {
        if (st.segment) {
          // What the live follow did not show before the job moved on: the rest of the cluster it
          // read (its read failed or was cut as that cluster was torn down) and any cluster the
          // job passed through between two looks. The controller keeps them before it names the next.
          const kept = await client.keptLog?.(id, { cluster: clusterOf(st.segment), offset: st.offset, before: j.clusterName });
          if (kept?.length) o.onOutput(kept);
          o.onMarker(recoveryMarker(id, j.clusterName, `recoveries: ${j.recoveryCount}`));
        }
        Object.assign(st, { segment: key, offset: 0, finished: false, readFailed: false });
      }
      if (!st.finished) {
        const seg = new AbortController();
        const stop = () => seg.abort();
        o.signal.addEventListener('abort', stop, { once: true });
        // A preempted head never answers again (the read would reconnect forever): the
        // segment ends once the job has moved off this cluster.
        const watching = watchMove(client, id, key, o.pollMs ?? 200, seg);
        try {
          await o.follow({ cluster: j.clusterName, agentJobId: j.agentJobId }, st.offset, (d) => {
            st.offset += d.length;
            o.onOutput(d);
          }, seg.signal).catch((e: Error) => {
            st.readFailed = true;
            o.log?.(`managed job ${id}: log of ${j.clusterName} ended: ${e.message}`);
          });
        } finally {
          seg.abort();
          o.signal.removeEventListener('abort', stop);
          await watching;
        }
        if (!o.signal.aborted) st.finished = true;
        continue;
      }
    }
    if (isTerminal(j.status)) {
      // What was not followed live (the job ended, or moved on and ended, before this look; or
      // the read failed as the cluster was torn down): what the controller kept, from the byte
      // this follow reached. The controller keeps a cluster's output before it forgets the
      // cluster, so after a failed read, while the ended job still names one, it may be on the way.
      if (!st.keptShown) {
        const at = st.segment ? { cluster: clusterOf(st.segment), offset: st.offset } : undefined;
        const kept = await client.keptLog?.(id, at);
        const waiting = !kept?.length && st.readFailed && client.keptLog && j.clusterName !== null && Date.now() < (keptBy ??= Date.now() + KEPT_WAIT_MS);
        if (!waiting) {
          st.keptShown = true;
          if (kept?.length) o.onOutput(kept);
          return j;
        }
      } else return j;
    }
    await sleep(o.pollMs ?? 200, o.signal);
  }
  return undefined;
}

/** The cluster of a segment key `<cluster>:<agent job>`. */
function clusterOf(segment: string): string {
  return segment.slice(0, segment.lastIndexOf(':'));
}

/** Aborts `seg` once job `id` is no longer on `key` (ends when `seg` is aborted anyway). */
async function watchMove(client: Pick<ManagedJobsClient, 'job'>, id: number, key: string, pollMs: number, seg: AbortController): Promise<void> {
  const every = Math.max(pollMs * 5, 500);
  while (!seg.signal.aborted) {
    await sleep(every, seg.signal);
    if (seg.signal.aborted) return;
    const j = await client.job(id).catch(() => undefined);
    if (j && `${j.clusterName}:${j.agentJobId}` !== key) seg.abort();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
