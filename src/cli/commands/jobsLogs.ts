import { logs as logsOp, type OpsContext } from '../../core/ops';
import { isTerminal } from '../../core/managed';
import { EXIT, type CliIO } from '../io';
import { parseJobId } from '../ranges';
import { detachOnInterrupt } from '../follow';
import { managedClient } from '../controllerHome';
import { OpsError } from '../../core/ops';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `jobs logs ID`: refuses (with the reason) a job that has no cluster to read from. */
export async function jobsLogs(io: CliIO, ctx: OpsContext, idText: string): Promise<number> {
  const id = parseJobId(idText);
  const client = await managedClient(ctx, { launch: false });
  const job = await client.job(id).finally(() => client.close());
  if (!job) throw new OpsError('usage', `there is no managed job ${id}`);
  if (!job.clusterName || job.agentJobId === null) {
    const why = isTerminal(job.status) ? `it has ended (${job.status}) and its cluster is torn down` : `it has no cluster yet (${job.status})`;
    io.err(`skydeck jobs logs: no output to show for managed job ${id}: ${why}.\n`);
    return EXIT.failed;
  }
  return followManagedJob(io, ctx, id);
}

/**
 * Follows the job's agent job on whichever cluster it currently runs (the ops logs path), and
 * after a recovery the next cluster's, with a marked line between; ends with the job.
 */
export async function followManagedJob(io: CliIO, ctx: OpsContext, id: number): Promise<number> {
  const client = await managedClient(ctx);
  const detach = detachOnInterrupt(io, () => `Follow it again with: skydeck jobs logs ${id}`);
  let followed: string | undefined;
  try {
    // A controller elsewhere holds the job clusters' rows: it follows there, we relay the bytes.
    if (client.follow) return await client.follow(id, { out: (b) => io.outBytes(b), err: (b) => io.err(b.toString()) }, detach.signal);
    while (!detach.signal.aborted) {
      const j = await client.job(id);
      if (!j) throw new OpsError('usage', `there is no managed job ${id}`);
      const key = `${j.clusterName}:${j.agentJobId}`;
      // Any status with an agent job: a short run may have ended before this look, and its
      // cluster is kept until torn down, so its log can still be read whole.
      if (j.clusterName && j.agentJobId !== null && key !== followed) {
        if (followed) io.err(`--- managed job ${id}: now on cluster ${j.clusterName} (recoveries: ${j.recoveryCount}) ---\n`);
        followed = key;
        await logsOp(ctx, { cluster: j.clusterName, jobId: j.agentJobId, follow: true, onOutput: (d) => io.outBytes(d), signal: detach.signal })
          .catch((e: Error) => ctx.log(`managed job ${id}: log of ${j.clusterName} ended: ${e.message}`));
        continue;
      }
      if (isTerminal(j.status)) {
        const ok = j.status === 'SUCCEEDED';
        io.err(`${ok ? '✓' : '✗'} Managed job ${id} ${j.status}${j.lastError && !ok ? `: ${j.lastError}` : ''}.\n`);
        return ok ? EXIT.ok : EXIT.failed;
      }
      await sleep(200);
    }
    return EXIT.ok;
  } finally {
    detach.dispose();
    await client.close();
  }
}
