import { logs as logsOp } from '../../core/ops';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { detachOnInterrupt, exitCodeFor } from '../follow';

export const logsCommand: CliCommand = {
  name: 'logs',
  summary: "stream a job's output (default: the newest job)",
  usage: `skydeck logs CLUSTER [JOB_ID] [--no-follow] [--rank R]
  --no-follow   print what is there now and exit
  --rank R      a multi-node job's rank R (0, the default, is the job log)`,
  flags: [{ name: 'no-follow' }, { name: 'rank', takesValue: true }],
  async run(args, io, context) {
    const [cluster, job, ...extra] = args.positionals;
    if (!cluster || extra.length) throw new UsageError('logs takes a cluster name and an optional job id');
    if (job !== undefined && !/^\d+$/.test(job)) throw new UsageError(`"${job}" is not a job id`);
    const rank = args.flags.rank === undefined ? undefined : String(args.flags.rank);
    if (rank !== undefined && !/^\d+$/.test(rank)) throw new UsageError(`--rank ${rank}: give a rank number (0, 1, …)`);
    const ctx = await context();
    const detach = detachOnInterrupt(io, () => `Follow it again with: skydeck logs ${cluster}${job ? ` ${job}` : ''}`);
    try {
      const r = await logsOp(ctx, {
        cluster, jobId: job === undefined ? undefined : Number(job), follow: !args.flags['no-follow'],
        onOutput: (d) => io.outBytes(d), signal: detach.signal, rank: rank === undefined ? undefined : Number(rank),
      });
      if (args.flags['no-follow']) return 0;
      return exitCodeFor(r.final, io, `Job ${r.jobId}`);
    } finally {
      detach.dispose();
    }
  },
};
