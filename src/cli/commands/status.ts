import { status as statusOp } from '../../core/ops';
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
    const rows = await statusOp(await context(), { refresh: !!args.flags.refresh });
    if (!rows.length) {
      io.out('No clusters. Launch one with: skydeck launch TASK.yaml -c NAME\n');
      return 0;
    }
    for (const r of rows) if (r.note) io.err(`${r.cluster.name}: ${r.note}\n`);
    io.out(table(
      ['NAME', 'LAUNCHED', 'CLOUD', 'REGION', 'NODES', 'STATUS', 'JOBS'],
      rows.map(({ cluster: c, live, error, removed }) => [
        c.name, ago(c.launched_at / 1000), c.provider, c.region ?? '-', String(c.num_nodes),
        removed ? 'GONE (removed)' : c.status + (c.flags ? ` (${flagText(c.flags)})` : ''),
        error ? `unreachable: ${error}` : live ? `${live.running} running, ${live.pending} pending` : '-',
      ]),
    ));
    return 0;
  },
};

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
