import { cancel as cancelOp } from '../../core/ops';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { flagText, parseGraceSeconds, parseJobId } from '../ranges';

export const cancelCommand: CliCommand = {
  name: 'cancel',
  summary: 'cancel jobs on a cluster',
  usage: `skydeck cancel CLUSTER JOB_ID... | --all [--grace SECONDS]
  -a, --all         cancel every unfinished job
  --grace SECONDS   SIGTERM, then SIGKILL after this long (default 10, at most 86400)
  JOB_ID is a whole number from 1 to 2^53-1.`,
  flags: [{ name: 'all', short: 'a' }, { name: 'yes', short: 'y' }, { name: 'grace', takesValue: true }],
  async run(args, io, context) {
    const [cluster, ...ids] = args.positionals;
    if (!cluster) throw new UsageError('cancel takes a cluster name');
    const all = !!args.flags.all;
    if (all === (ids.length > 0)) throw new UsageError('name the jobs to cancel, or pass --all (not both)');
    const jobIds = ids.map(parseJobId);
    const graceText = flagText(args.flags.grace);
    const grace = graceText === undefined ? undefined : parseGraceSeconds(graceText);
    const r = await cancelOp(await context(), cluster, all ? { all } : { jobIds }, grace);
    io.out(r.cancelled.length ? `Cancelled job(s) ${r.cancelled.join(', ')} on ${cluster}.\n` : `No unfinished job to cancel on ${cluster}.\n`);
    if (r.already_terminal?.length) io.out(`Already finished: ${r.already_terminal.join(', ')}.\n`);
    return 0;
  },
};
