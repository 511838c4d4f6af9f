import type { OpsContext } from '../../core/ops';
import { UsageError, type ParsedArgs } from '../args';
import { EXIT, type CliIO } from '../io';
import { parseJobId } from '../ranges';
import { managedClient } from '../controllerHome';

/**
 * `jobs cancel ID... | --all`: records the cancel requests; the controller sees them on its
 * next scan and tears each job's cluster down with proof.
 */
export async function jobsCancel(io: CliIO, ctx: OpsContext, ids: string[], flags: ParsedArgs['flags']): Promise<number> {
  const all = !!flags.all;
  if (all === (ids.length > 0)) throw new UsageError('name the managed jobs to cancel, or pass --all (not both)');
  if (all && !flags.yes) throw new UsageError('this cancels every unfinished managed job; pass -y to confirm');
  const wanted = ids.map(parseJobId);
  const client = await managedClient(ctx, { launch: false });
  try {
    const { requested, skipped } = await client.cancel(all ? 'all' : wanted);
    io.out(requested.length ? `Cancelling managed job(s) ${requested.join(', ')}; their clusters are torn down with proof (see skydeck jobs queue).\n` : 'No unfinished managed job to cancel.\n');
    if (skipped.length) io.err(`Not cancelled (unknown or already ended): ${skipped.join(', ')}.\n`);
    return skipped.length && !all ? EXIT.failed : EXIT.ok;
  } finally {
    await client.close();
  }
}
