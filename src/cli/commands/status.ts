import { refusedClusters, status as statusOp, type LiveAutostop } from '../../core/ops';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { ago, table } from '../table';

export const statusCommand: CliCommand = {
  name: 'status',
  summary: 'list clusters',
  usage: `skydeck status [-r]
  -r, --refresh   check cloud clusters against their cloud (finishing interrupted
                  teardowns, removing clusters proven gone) and ask every UP cluster's
                  agent for its live job counts`,
  flags: [{ name: 'refresh', short: 'r' }],
  async run(args, io, context) {
    if (args.positionals.length) throw new UsageError(`status takes no arguments (got ${args.positionals.map((p) => JSON.stringify(p)).join(' ')})`);
    const ctx = await context();
    const refused = await refusedClusters(ctx);
    for (const m of refused) io.err(`warning: ${m}\n`);
    const rows = await statusOp(ctx, { refresh: !!args.flags.refresh });
    for (const r of rows) if (r.notOurs) io.err(`${r.cluster.name}: ${r.notOurs}\n`);
    if (!rows.length) {
      io.out('No clusters. Launch one with: skydeck launch TASK.yaml -c NAME\n');
      return 0;
    }
    for (const r of rows) if (r.note) io.err(`${r.cluster.name}: ${r.note}\n`);
    for (const r of rows) {
      for (const p of r.live?.autostop?.problems ?? []) io.err(`${r.cluster.name}: autostop could not stop the cluster: ${p}\n`);
    }
    io.out(table(
      ['NAME', 'LAUNCHED', 'CLOUD', 'REGION', 'NODES', 'STATUS', 'AUTOSTOP', 'JOBS'],
      rows.map(({ cluster: c, live, error, removed }) => [
        c.name, ago(c.launched_at / 1000), c.provider, c.region ?? '-', String(c.num_nodes),
        removed ? 'GONE (removed)' : c.status + (c.flags ? ` (${flagText(c.flags)})` : ''),
        autostopText(c.autostop_minutes, c.autostop_down === 1, live?.autostop),
        error ? `unreachable: ${error}` : live ? `${live.running} running, ${live.pending} pending` : '-',
      ]),
    ));
    return 0;
  },
};

/** "10m", "10m (down)", with a refresh "10m, in 3m" or "10m, FAILED" (the reason goes to stderr). */
export function autostopText(minutes: number | null, down: boolean, live?: LiveAutostop): string {
  if (minutes === null) return '-';
  const base = `${minutes}m${down ? ' (down)' : ''}`;
  if (live?.problems.length) return `${base}, FAILED`;
  if (live && live.firesIn !== null) return `${base}, in ${Math.ceil(live.firesIn / 60)}m`;
  return base;
}

/** What the user reads for a flags value. */
function flagText(flags: string): string {
  const known: Record<string, string> = {
    'termination-unconfirmed': 'termination unconfirmed: run skydeck down again',
    'stop-unconfirmed': 'stop unconfirmed: run skydeck stop again',
    terminating: 'tearing down',
    stopping: 'stopping',
  };
  return known[flags] ?? flags;
}
