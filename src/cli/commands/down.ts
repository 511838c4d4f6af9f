import { down as downOp, expandClusterNames } from '../../core/ops';
import { guardControllerDown } from '../../core/managed';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { OpsError } from '../../core/ops';
import { EXIT } from '../io';
import { flagText, parseGraceSeconds } from '../ranges';

export const downCommand: CliCommand = {
  name: 'down',
  summary: "tear clusters down (cloud: terminate and confirm; local/ssh: cancel jobs, remove Skydeck's files)",
  usage: `skydeck down CLUSTER... -y [--purge]     (CLUSTER may be a glob: 'dev-*')
  -y, --yes   required: confirms the teardown
  --purge     forget the cluster even if its cleanup cannot be confirmed (says what it
              skipped; "skydeck leaks" finds cloud instances left behind)
  Cloud clusters are forgotten only once the cloud confirms every instance is terminating;
  if it does not, the cluster stays, marked "termination unconfirmed": run down again.`,
  flags: [{ name: 'yes', short: 'y' }, { name: 'purge' }, { name: 'grace', takesValue: true }],
  async run(args, io, context) {
    if (!args.positionals.length) throw new UsageError('down takes one or more cluster names');
    if (!args.flags.yes) {
      throw new UsageError(`this cancels every job on ${args.positionals.join(', ')} and deletes their logs; pass -y to confirm`);
    }
    const graceText = flagText(args.flags.grace);
    const graceSeconds = graceText === undefined ? undefined : parseGraceSeconds(graceText);
    const ctx = await context();
    let code = 0;
    for (const name of await expandClusterNames(ctx, args.positionals)) {
      try {
        const unseal = await guardControllerDown(ctx, name, !!args.flags.purge);
        const r = await downOp(ctx, name, { purge: !!args.flags.purge, graceSeconds }).catch(async (e: unknown) => { await unseal?.(); throw e; });
        io.out(`Cluster ${name} (uid ${r.uid}) is down${r.notes.length ? ` (${r.notes.join('; ')})` : ''}.\n`);
      } catch (e) {
        io.err(`skydeck down ${name}: ${(e as Error).message}\n`);
        code = worstExit(code, e);
      }
    }
    return code;
  },
};

/** With several clusters, the worst outcome decides: a usage error (e.g. an unknown name) is 2. */
export function worstExit(code: number, e: unknown): number {
  const next = e instanceof OpsError && e.kind === 'usage' ? EXIT.usage : EXIT.failed;
  return code === EXIT.usage ? code : Math.max(code, next);
}
