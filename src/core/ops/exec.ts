import type { OpsContext } from './context';
import { requireCluster } from './findCluster';
import { loadTaskForRun, type TaskInput } from './loadTask';
import { checkSyncSources } from './syncFiles';
import { readHandle } from './clusterHandle';
import { assertNoTeardownSince } from './launch';
import { syncAll } from './syncHead';
import { teardownUnderWay } from '../provision';
import { OpsError } from './errors';
import { syncWorkers } from './multiNode';
import { jobSpecOf } from './jobSpec';
import { forCluster, planBuckets } from './bucketPlan';
import { grantPlannedBuckets } from './bucketGrant';
import { followJob, FollowOptions, JobOutcome, submitJob } from './runJob';
import { trace } from '../util/trace';

export interface ExecRequest extends FollowOptions, TaskInput {
  cluster: string;
  detach?: boolean;
  /** Cancels before the submit (the editor's Cancel); after it, nothing is undone. */
  signal?: AbortSignal;
}

/** `sky exec`: sync the workdir and run the task's `run` as a new job (no setup). */
export async function exec(ctx: OpsContext, req: ExecRequest): Promise<JobOutcome> {
  trace('exec: start');
  const row = await requireCluster(ctx, req.cluster);
  trace('exec: cluster row read');
  const busy = teardownUnderWay(row);
  if (busy) throw new OpsError('failed', busy);
  const client = ctx.connections.client(row);
  // Connecting (SSH handshake, agent check) overlaps with reading the task.
  const connecting = client.connect();
  connecting.catch(() => undefined);
  const { task, envs, secrets, dir, warnings } = await loadTaskForRun(req);
  trace('exec: task loaded');
  warnings.forEach((w) => ctx.warn(w));
  checkSyncSources(task, dir);
  // Unlike SkyPilot's exec (which leaves storage alone), the task's bucket mounts are ensured
  // as at launch: a mount already there is kept, a missing one is made, COPY fetches what changed.
  const buckets = await planBuckets(ctx, task, row.provider);
  await grantPlannedBuckets(ctx, row, buckets);
  trace('exec: buckets planned');
  await connecting;
  trace('exec: agent connected');
  const { workdir } = readHandle(row);
  // The workdir manifests are written while the submit waits on the node (manifestSync.ts deferred).
  const deferred: Promise<Error | undefined>[] = [];
  const extras = { buckets: forCluster(ctx, buckets, row), gitEnvs: { ...envs, ...secrets }, deferred };
  let jobId: number;
  try {
    await Promise.all([syncAll(ctx, client, task, dir, workdir, extras), syncWorkers(ctx, row, task, dir, extras)]);
    trace('exec: synced');
    if (req.signal?.aborted) throw new OpsError('failed', `exec on ${req.cluster} cancelled before its job was submitted`);
    jobId = await submitJob(client, jobSpecOf(task, envs, { user: ctx.user, workdir, withSetup: false, secrets }));
    trace('exec: submitted');
  } finally {
    // The node holds these syncs whatever happened since: their manifests land before exec returns.
    for (const e of await Promise.all(deferred)) {
      if (e) ctx.warn(`the workdir sync's local record could not be written (the next sync sends everything): ${e.message}`);
    }
  }
  await assertNoTeardownSince(ctx, row, jobId);
  trace('exec: teardown check');
  req.onSubmitted?.(jobId, req.cluster);
  if (req.detach) return { jobId };
  return { jobId, final: await followJob(client, jobId, req) };
}
