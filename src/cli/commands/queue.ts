import { queue as queueOp } from '../../core/ops';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { ago, duration, table } from '../table';

export const queueCommand: CliCommand = {
  name: 'queue',
  summary: "show a cluster's job queue",
  usage: 'skydeck queue CLUSTER',
  flags: [],
  async run(args, io, context) {
    const [cluster, ...extra] = args.positionals;
    if (!cluster || extra.length) throw new UsageError('queue takes one cluster name');
    const jobs = await queueOp(await context(), cluster);
    const now = Date.now() / 1000;
    io.out(`Job queue of ${cluster}\n`);
    io.out(table(
      ['ID', 'NAME', 'USER', 'SUBMITTED', 'DURATION', 'RESOURCES', 'STATUS'],
      [...jobs].reverse().map((j) => [
        String(j.job_id), j.name ?? '-', j.user ?? '-', ago(j.submitted_at, now),
        j.started_at ? duration((j.ended_at ?? now) - j.started_at) : '-',
        [j.cpus ? `${j.cpus} CPU` : '', ...Object.entries(j.accelerators ?? {}).map(([k, v]) => `${k}:${v}`)].filter(Boolean).join(', ') || '-',
        j.status + (j.reason ? ` (${j.reason})` : ''),
      ]),
    ));
    return 0;
  },
};
