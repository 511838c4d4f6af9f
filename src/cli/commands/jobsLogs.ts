import { logs as logsOp, OpsError, type OpsContext } from '../../core/ops';
import { followManagedLog, isTerminal } from '../../core/managed';
import { EXIT, type CliIO } from '../io';
import { parseJobId } from '../ranges';
import { detachOnInterrupt } from '../follow';
import { managedClient } from '../controllerHome';

/**
 * `jobs logs ID [--controller]`: the job's output (live, or what the controller kept of an
 * ended job); with --controller, what the controller recorded about the job instead.
 */
export async function jobsLogs(io: CliIO, ctx: OpsContext, idText: string, controller = false): Promise<number> {
  const id = parseJobId(idText);
  const client = await managedClient(ctx, { launch: false });
  try {
    const job = await client.job(id);
    if (!job) throw new OpsError('usage', `there is no managed job ${id}`);
    if (controller) return await controllerView(io, client, id);
    // A controller elsewhere keeps the job's output there; its follow prints it.
    if (!client.follow && (!job.clusterName || job.agentJobId === null)) {
      const kept = isTerminal(job.status) ? await client.keptLog?.(id) : undefined;
      if (!kept?.length) {
        const why = isTerminal(job.status) ? `it has ended (${job.status}), its cluster is torn down and no output of it was kept` : `it has no cluster yet (${job.status})`;
        io.err(`skydeck jobs logs: no output to show for managed job ${id}: ${why}.\n`);
        return EXIT.failed;
      }
    }
  } finally {
    await client.close();
  }
  return followManagedJob(io, ctx, id);
}

/** The job's recorded status changes (time, move, reason), then the controller log's lines about it. */
async function controllerView(io: CliIO, client: Awaited<ReturnType<typeof managedClient>>, id: number): Promise<number> {
  for (const e of await client.events(id)) io.out(`${new Date(e.ts).toISOString()}  ${e.from ?? '-'} -> ${e.to}  ${oneLine(e.reason)}\n`);
  const lines = client.controllerLog ? await client.controllerLog(id) : undefined;
  if (lines === undefined) io.err('(this controller does not share its log file)\n');
  else if (!lines.length) io.err(`(the controller's log has no line about managed job ${id})\n`);
  for (const l of lines ?? []) io.out(`${oneLine(l)}\n`);
  return EXIT.ok;
}

/** Reasons quote cloud and agent messages: one line each, control characters shown escaped. */
function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f\u009b]/g, (c) => (c === '\n' ? '\\n' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

/** Follows the job across its recoveries (core followManagedLog over ops logs); ends with the job. */
export async function followManagedJob(io: CliIO, ctx: OpsContext, id: number): Promise<number> {
  const client = await managedClient(ctx);
  const detach = detachOnInterrupt(io, () => `Follow it again with: skydeck jobs logs ${id}`);
  try {
    // A controller elsewhere holds the job clusters' rows: it follows there, we relay the bytes.
    if (client.follow) return await client.follow(id, { out: (b) => io.outBytes(b), err: (b) => io.err(b.toString()) }, detach.signal);
    const j = await followManagedLog(client, id, {
      signal: detach.signal,
      log: (m) => ctx.log(m),
      onOutput: (d) => io.outBytes(d),
      onMarker: (line) => io.err(`${line}\n`),
      // The CLI reads each cluster's log from its start (a resumed follow is a new command).
      follow: async (seg, _from, onChunk, signal) => {
        await logsOp(ctx, { cluster: seg.cluster, jobId: seg.agentJobId, follow: true, onOutput: onChunk, signal });
      },
    }).catch((e: Error) => {
      throw /^there is no managed job/.test(e.message) ? new OpsError('usage', e.message) : e;
    });
    if (!j) return EXIT.ok;
    const ok = j.status === 'SUCCEEDED';
    io.err(`${ok ? '✓' : '✗'} Managed job ${id} ${j.status}${j.lastError && !ok ? `: ${j.lastError}` : ''}.\n`);
    return ok ? EXIT.ok : EXIT.failed;
  } finally {
    detach.dispose();
    await client.close();
  }
}
