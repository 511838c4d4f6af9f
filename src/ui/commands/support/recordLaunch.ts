import type { OpsContext } from '../../../core/ops';
import { requireCluster } from '../../../core/ops/findCluster';
import type { JobEnd, LaunchedJob } from '../../jobEvents';
import type { WorkdirMap } from '../../logs/traceback';
import { readHandle } from '../../../core/ops/clusterHandle';
import { parseTaskFile } from '../../../core/task';
import { localPath } from '../../../core/task/localPath';
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
export async function recordLaunch(ctx: Pick<CommandDeps, 'ops' | 'log' | 'jobEvents'>, job: LaunchedJob & { pathBase: string }): Promise<void> {
  const events = ctx.jobEvents;
  const { pathBase, ...launched } = job;
  events.launched(launched);
  waitForJobEnd(() => ctx.ops(), job.cluster, job.jobId, events.signal).then(
    (end) => end && events.publish({ ...end, source: 'watch' }),
    (e: Error) => ctx.log.warn(`watching ${job.cluster} #${job.jobId} for its end stopped: ${e.message}`),
  );
  // Before the log panel opens, so its first page already links tracebacks; a failure only loses the links.
  await recordWorkdir(ctx, launched, pathBase).catch((e: Error) => ctx.log.debug(`no traceback links for ${job.cluster} #${job.jobId}: ${e.message}`));
}

/** Where the task's workdir was synced from and to: its log panel links tracebacks through it. */
async function recordWorkdir(ctx: Pick<CommandDeps, 'ops' | 'jobEvents'>, job: LaunchedJob, pathBase: string): Promise<void> {
  const map = await workdirMapOf(ctx.ops, job.cluster, job.taskFile, pathBase);
  if (map) ctx.jobEvents.setWorkdir(job.cluster, job.jobId, map);
}

export async function workdirMapOf(ops: () => Promise<OpsContext>, cluster: string, taskFile: string, pathBase: string): Promise<WorkdirMap | undefined> {
  const workdir = (await parseTaskFile(taskFile, { env: {} })).tasks[0]?.workdir;
  if (typeof workdir !== 'string') return undefined; // none, or a git workdir (cloned on the node)
  const ctx = await ops();
  const nodeDir = readHandle(await requireCluster(ctx, cluster)).workdir;
  return typeof nodeDir === 'string' && nodeDir.startsWith('/') ? { nodeDir, localDir: localPath(workdir, pathBase) } : undefined;
}
