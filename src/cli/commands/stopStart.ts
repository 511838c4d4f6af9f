import { expandClusterNames, start as startOp, stop as stopOp } from '../../core/ops';
import { guardControllerStop } from '../../core/managed';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { worstExit } from './down';

export const stopCommand: CliCommand = {
  name: 'stop',
  summary: 'stop cloud clusters (instances stopped, disks kept; start them again later)',
  usage: `skydeck stop CLUSTER...     (CLUSTER may be a glob: 'dev-*')
  Returns once the cloud confirms every instance is stopping or stopped.`,
  flags: [{ name: 'yes', short: 'y' }],
  async run(args, io, context) {
    if (!args.positionals.length) throw new UsageError('stop takes one or more cluster names');
    const ctx = await context();
    let code = 0;
    const names = await expandClusterNames(ctx, args.positionals);
    for (const name of names) {
      try {
        const unseal = await guardControllerStop(ctx, name);
        const r = await stopOp(ctx, name).catch(async (e: unknown) => { await unseal?.(); throw e; });
        io.out(`Cluster ${name} is stopped (${r.notes.join('; ')}).\n`);
      } catch (e) {
        if (names.length === 1) throw e;
        io.err(`skydeck stop ${name}: ${(e as Error).message}\n`);
        code = worstExit(code, e);
      }
    }
    return code;
  },
};

export const startCommand: CliCommand = {
  name: 'start',
  summary: 'start stopped cloud clusters again',
  usage: "skydeck start CLUSTER...     (CLUSTER may be a glob: 'dev-*')",
  flags: [{ name: 'yes', short: 'y' }],
  async run(args, io, context) {
    if (!args.positionals.length) throw new UsageError('start takes one or more cluster names');
    const ctx = await context();
    let code = 0;
    const names = await expandClusterNames(ctx, args.positionals);
    for (const name of names) {
      try {
        const row = await startOp(ctx, name);
        io.out(`Cluster ${name} is UP (head ${row.head_address ?? '?'}).\n`);
      } catch (e) {
        if (names.length === 1) throw e;
        io.err(`skydeck start ${name}: ${(e as Error).message}\n`);
        code = worstExit(code, e);
      }
    }
    return code;
  },
};
