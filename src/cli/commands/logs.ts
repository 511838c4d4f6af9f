import { logs as logsOp } from '../../core/ops';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { flagText, parseJobId, parseRank } from '../ranges';
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
    const jobId = job === undefined ? undefined : parseJobId(job);
    const rankText = flagText(args.flags.rank);
    const rank = rankText === undefined ? undefined : parseRank(rankText);
    const ctx = await context();
    const detach = detachOnInterrupt(io, () => `Follow it again with: skydeck logs ${cluster}${job ? ` ${job}` : ''}`);
    try {
      const r = await logsOp(ctx, {
        cluster, jobId, follow: !args.flags['no-follow'],
        onOutput: (d) => io.outBytes(d), signal: detach.signal, rank,
      });
      if (args.flags['no-follow']) return 0;
      return exitCodeFor(r.final, io, `Job ${r.jobId}`);
    } finally {
      detach.dispose();
    }
  },
};
