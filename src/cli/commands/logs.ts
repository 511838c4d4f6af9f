import { logs as logsOp } from '../../core/ops';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { detachOnInterrupt, exitCodeFor } from '../follow';

export const logsCommand: CliCommand = {
  name: 'logs',
  summary: "stream a job's output (default: the newest job)",
  usage: `skydeck logs CLUSTER [JOB_ID] [--no-follow]
  --no-follow   print what is there now and exit`,
  flags: [{ name: 'no-follow' }],
  async run(args, io, context) {
    const [cluster, job, ...extra] = args.positionals;
    if (!cluster || extra.length) throw new UsageError('logs takes a cluster name and an optional job id');
    if (job !== undefined && !/^\d+$/.test(job)) throw new UsageError(`"${job}" is not a job id`);
    const ctx = await context();
    const detach = detachOnInterrupt(io, () => `Follow it again with: skydeck logs ${cluster}${job ? ` ${job}` : ''}`);
    try {
      const r = await logsOp(ctx, {
        cluster, jobId: job === undefined ? undefined : Number(job), follow: !args.flags['no-follow'],
        onOutput: (d) => io.outBytes(d), signal: detach.signal,
      });
      if (args.flags['no-follow']) return 0;
      return exitCodeFor(r.final, io, `Job ${r.jobId}`);
    } finally {
      detach.dispose();
    }
  },
};
