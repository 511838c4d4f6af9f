import { expandClusterNames, setAutostop } from '../../core/ops';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { flagText, parseIdleMinutes } from '../ranges';
import { autostopText } from './status';
import { worstExit } from './down';

export const autostopCommand: CliCommand = {
  name: 'autostop',
  summary: 'set or cancel autostop on running cloud clusters',
  usage: `skydeck autostop CLUSTER... [-i MIN] [--down] | --cancel
  -i, --idle-minutes N  stop after N idle minutes (default 5)
  --down                tear the cluster down instead of stopping it
  --cancel              turn autostop off
  CLUSTER may be a glob pattern, as in sky: 'dev-*'.
  What a running cluster can change depends on how it was launched (e.g. an AWS cluster
  launched without --down stops on shutdown; relaunch to change that).`,
  flags: [{ name: 'idle-minutes', short: 'i', takesValue: true }, { name: 'down' }, { name: 'cancel' }],
  async run(args, io, context) {
    if (!args.positionals.length) throw new UsageError('autostop takes one or more cluster names');
    const idleText = flagText(args.flags['idle-minutes']);
    const cancel = !!args.flags.cancel;
    if (cancel && (idleText !== undefined || args.flags.down)) throw new UsageError('--cancel turns autostop off; it takes no -i or --down');
    const idleMinutes = idleText === undefined ? undefined : parseIdleMinutes(idleText);
    const ctx = await context();
    const names = await expandClusterNames(ctx, args.positionals);
    let code = 0;
    for (const name of names) {
      try {
        const row = await setAutostop(ctx, name, { idleMinutes, down: !!args.flags.down, cancel });
        io.out(row.autostop_minutes === null ? `Autostop of ${name} is off.\n` : `Autostop of ${name}: ${autostopText(row.autostop_minutes, row.autostop_down === 1)}.\n`);
      } catch (e) {
        if (names.length === 1) throw e;
        io.err(`skydeck autostop ${name}: ${(e as Error).message}\n`);
        code = worstExit(code, e);
      }
    }
    return code;
  },
};
