import { isTerminal } from '../../core/managed';
import type { OpsContext } from '../../core/ops';
import { EXIT, type CliIO } from '../io';
import { duration, table } from '../table';
import { managedClient } from '../controllerHome';

/** `jobs queue [--all] [--refresh]`: a look at the store (no controller needs to run for it). */
export async function jobsQueue(io: CliIO, ctx: OpsContext, all: boolean, refresh = false): Promise<number> {
  const client = await managedClient(ctx, { launch: false, refresh });
  const listing = await client.list().finally(() => client.close());
  const now = ctx.clock?.now() ?? Date.now();
  const jobs = listing.jobs.filter((j) => all || !isTerminal(j.status)).reverse();
  if (!jobs.length && !listing.refused.length) {
    io.out(all ? 'No managed jobs.\n' : 'No unfinished managed jobs (--all lists finished ones).\n');
    return EXIT.ok;
  }
  io.out(table(
    ['ID', 'NAME', 'STATUS', 'RECOVERIES', 'CLUSTER', 'DURATION'],
    jobs.map((j) => [
      String(j.id), j.name, j.status + (j.cancelRequested && !isTerminal(j.status) ? ' (cancel requested)' : ''), String(j.recoveryCount),
      j.clusterName ?? '-', j.startedAt ? duration(((j.endedAt ?? now) - j.startedAt) / 1000) : '-',
    ]),
  ));
  for (const r of listing.refused) io.err(`warning: managed job ${String(r.id)} is not shown: its row is damaged (${r.problem})\n`);
  return EXIT.ok;
}
