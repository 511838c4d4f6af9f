import { down as downOp } from '../../core/ops';
import { UsageError } from '../args';
import type { CliCommand } from '../command';

export const downCommand: CliCommand = {
  name: 'down',
  summary: "tear clusters down (cancel their jobs, remove Skydeck's files there)",
  usage: `skydeck down CLUSTER... -y [--purge]
  -y, --yes   required: confirms the teardown
  --purge     forget the cluster even if its machine cannot be cleaned up`,
  flags: [{ name: 'yes', short: 'y' }, { name: 'purge' }, { name: 'grace', takesValue: true }],
  async run(args, io, context) {
    if (!args.positionals.length) throw new UsageError('down takes one or more cluster names');
    if (!args.flags.yes) {
      throw new UsageError(`this cancels every job on ${args.positionals.join(', ')} and deletes their logs; pass -y to confirm`);
    }
    const ctx = await context();
    let code = 0;
    for (const name of args.positionals) {
      try {
        const r = await downOp(ctx, name, { purge: !!args.flags.purge, graceSeconds: args.flags.grace ? Number(args.flags.grace) : undefined });
        io.out(`Cluster ${name} is down${r.notes.length ? ` (${r.notes.join('; ')})` : ''}.\n`);
      } catch (e) {
        io.err(`skydeck down ${name}: ${(e as Error).message}\n`);
        code = 1;
      }
    }
    return code;
  },
};
