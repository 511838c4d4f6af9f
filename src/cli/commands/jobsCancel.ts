import { ManagedStore, isTerminal, listJobs, requestCancel } from '../../core/managed';
import type { OpsContext } from '../../core/ops';
import { UsageError, type ParsedArgs } from '../args';
import { EXIT, type CliIO } from '../io';
import { parseJobId } from '../ranges';
import { ensureLocalController, storeFileOf } from '../controllerHome';

/**
 * `jobs cancel ID... | --all`: records the cancel requests in the store; the controller sees
 * them on its next scan and tears each job's cluster down with proof.
 */
export async function jobsCancel(io: CliIO, ctx: OpsContext, ids: string[], flags: ParsedArgs['flags']): Promise<number> {
  const all = !!flags.all;
  if (all === (ids.length > 0)) throw new UsageError('name the managed jobs to cancel, or pass --all (not both)');
  if (all && !flags.yes) throw new UsageError('this cancels every unfinished managed job; pass -y to confirm');
  const wanted = ids.map(parseJobId);
  const store = await ManagedStore.open(storeFileOf(ctx.workspaceRoot));
  const now = ctx.clock?.now() ?? Date.now();
  try {
    const targets = all ? (await store.read((db) => listJobs(db))).jobs.filter((j) => !isTerminal(j.status)).map((j) => j.id) : wanted;
    const done = await store.write((db) => targets.filter((id) => requestCancel(db, id, now)));
    const skipped = targets.filter((id) => !done.includes(id));
    io.out(done.length ? `Cancelling managed job(s) ${done.join(', ')}; their clusters are torn down with proof (see skydeck jobs queue).\n` : 'No unfinished managed job to cancel.\n');
    // A controller that died would leave the request unserved: make sure one runs.
    if (done.length) ensureLocalController(ctx.workspaceRoot);
    if (skipped.length) io.err(`Not cancelled (unknown or already ended): ${skipped.join(', ')}.\n`);
    return skipped.length && !all ? EXIT.failed : EXIT.ok;
  } finally {
    store.close();
  }
}
