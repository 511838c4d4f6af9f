import type { OpsContext } from '../../../core/ops';
import { requireCluster } from '../../../core/ops/findCluster';
import type { JobEnd, LaunchedJob } from '../../jobEvents';
import type { CommandDeps } from '../command';

/**
 * A follow that starts this far into the log never receives a byte (no log is a petabyte), yet
 * the agent still answers it when the job ends: a wait for the end over the cluster's one
 * connection, with no output sent and no polling here.
 */
const PAST_ANY_LOG = 2 ** 50;

/** Waits for the job's end; undefined if aborted. Rejects if the cluster cannot be reached for good. */
export async function waitForJobEnd(ops: () => Promise<OpsContext>, cluster: string, jobId: number, signal: AbortSignal): Promise<Omit<JobEnd, 'source'> | undefined> {
  const ctx = await ops();
  const client = ctx.connections.client(await requireCluster(ctx, cluster));
  const final = await client.followLogs(jobId, () => undefined, { offset: PAST_ANY_LOG, signal });
  if (!final || signal.aborted) return undefined;
  return { cluster, jobId, status: final.status, exitCode: final.exit_code, reason: final.reason };
}

/**
 * Launch/Exec submitted a job from this window: remember it (the notifier tells how it ended and
 * offers Re-run) and watch for its end, so the tree and the notification do not wait for a poll
 * even when no log panel is open.
 */
export function recordLaunch(ctx: Pick<CommandDeps, 'ops' | 'log' | 'jobEvents'>, job: LaunchedJob): void {
  const events = ctx.jobEvents;
  events.launched(job);
  waitForJobEnd(() => ctx.ops(), job.cluster, job.jobId, events.signal).then(
    (end) => end && events.publish({ ...end, source: 'watch' }),
    (e: Error) => ctx.log.warn(`watching ${job.cluster} #${job.jobId} for its end stopped: ${e.message}`),
  );
}
