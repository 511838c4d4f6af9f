import { cancel as cancelOp } from '../../core/ops';
import { UsageError } from '../args';
import type { CliCommand } from '../command';

export const cancelCommand: CliCommand = {
  name: 'cancel',
  summary: 'cancel jobs on a cluster',
  usage: `skydeck cancel CLUSTER JOB_ID... | --all [--grace SECONDS]
  -a, --all         cancel every unfinished job
  --grace SECONDS   SIGTERM, then SIGKILL after this long (default 10)`,
  flags: [{ name: 'all', short: 'a' }, { name: 'yes', short: 'y' }, { name: 'grace', takesValue: true }],
  async run(args, io, context) {
    const [cluster, ...ids] = args.positionals;
    if (!cluster) throw new UsageError('cancel takes a cluster name');
    const all = !!args.flags.all;
    if (all === (ids.length > 0)) throw new UsageError('name the jobs to cancel, or pass --all (not both)');
    const bad = ids.find((i) => !/^\d+$/.test(i));
    if (bad) throw new UsageError(`"${bad}" is not a job id`);
    const grace = args.flags.grace === undefined ? undefined : Number(args.flags.grace);
    if (grace !== undefined && !(grace >= 0)) throw new UsageError('--grace takes a number of seconds');
    const r = await cancelOp(await context(), cluster, all ? { all } : { jobIds: ids.map(Number) }, grace);
    io.out(r.cancelled.length ? `Cancelled job(s) ${r.cancelled.join(', ')} on ${cluster}.\n` : `No unfinished job to cancel on ${cluster}.\n`);
    if (r.already_terminal?.length) io.out(`Already finished: ${r.already_terminal.join(', ')}.\n`);
    return 0;
  },
};
