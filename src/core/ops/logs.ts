import type { OpsContext } from './context';
import { OpsError } from './errors';
import { requireCluster } from './findCluster';
import { followJob, FollowOptions } from './runJob';
import { AgentError, type LogsFinal } from '../jobs';

export interface LogsRequest extends FollowOptions {
  cluster: string;
  /** Default: the newest job. */
  jobId?: number;
  follow?: boolean;
  /** A multi-node job's rank (0, the default, is the job log). */
  rank?: number;
}

export async function logs(ctx: OpsContext, req: LogsRequest): Promise<{ jobId: number; final?: LogsFinal }> {
  const row = await requireCluster(ctx, req.cluster);
  const client = ctx.connections.client(row);
  let jobId = req.jobId;
  if (jobId === undefined) {
    const jobs = await client.queue();
    if (!jobs.length) throw new OpsError('usage', `cluster ${req.cluster} has no jobs yet`);
    jobId = jobs[jobs.length - 1].job_id;
  }
  try {
    if (req.follow === false) {
      const final = await client.followLogs(jobId, (d) => req.onOutput?.(d), { follow: false, rank: req.rank });
      return { jobId, final };
    }
    if (req.rank) {
      const final = await client.followLogs(jobId, (d) => req.onOutput?.(d), { signal: req.signal, onReconnect: req.onReconnect, rank: req.rank });
      return { jobId, final };
    }
    return { jobId, final: await followJob(client, jobId, req) };
  } catch (e) {
    if (e instanceof AgentError) throw new OpsError(e.code === 'not_found' ? 'usage' : 'failed', `${req.cluster}: ${e.message}`);
    throw e;
  }
}
