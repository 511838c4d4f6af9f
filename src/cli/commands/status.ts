import { status as statusOp } from '../../core/ops';
import type { CliCommand } from '../command';
import { ago, table } from '../table';

export const statusCommand: CliCommand = {
  name: 'status',
  summary: 'list clusters',
  usage: `skydeck status [-r]
  -r, --refresh   ask every cluster's agent for its live job counts`,
  flags: [{ name: 'refresh', short: 'r' }],
  async run(args, io, context) {
    const rows = await statusOp(await context(), { refresh: !!args.flags.refresh });
    if (!rows.length) {
      io.out('No clusters. Launch one with: skydeck launch TASK.yaml -c NAME\n');
      return 0;
    }
    io.out(table(
      ['NAME', 'LAUNCHED', 'CLOUD', 'REGION', 'NODES', 'STATUS', 'JOBS'],
      rows.map(({ cluster: c, live, error }) => [
        c.name, ago(c.launched_at / 1000), c.provider, c.region ?? '-', String(c.num_nodes),
        c.status + (c.flags ? ` (${c.flags})` : ''),
        error ? `unreachable: ${error}` : live ? `${live.running} running, ${live.pending} pending` : '-',
      ]),
    ));
    return 0;
  },
};
