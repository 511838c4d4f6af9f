import type { JobRow } from '../jobs';
import { putJobs } from '../state';
import type { OpsContext } from './context';
import { requireCluster } from './findCluster';

/** The cluster's queue from its agent (deltas after the first call), cached in the state. */
export async function queue(ctx: OpsContext, cluster: string): Promise<JobRow[]> {
  const row = await requireCluster(ctx, cluster);
  const jobs = await ctx.connections.client(row).queue();
  await ctx.store.write((db) =>
    putJobs(db, jobs.map((j) => ({
      cluster_uid: row.uid, cluster, job_id: j.job_id, name: j.name, user_name: j.user, status: j.status, submitted_at: j.submitted_at,
      started_at: j.started_at, ended_at: j.ended_at, exit_code: j.exit_code, reason: j.reason,
      resources: JSON.stringify({ cpus: j.cpus, memory: j.memory, accelerators: j.accelerators }),
    }))),
  );
  return jobs;
}
