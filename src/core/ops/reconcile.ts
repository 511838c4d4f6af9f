import { listClusters, notOursReason } from '../state';
import { needsReconcile, reconcileOne, type ReconcileOutcome } from '../provision';
import type { OpsContext } from './context';
import { isProviderCluster, providerOf, envFor } from './providerEnv';

/**
 * Crash recovery, for start-up: every cloud row left INIT or flagged by a teardown/stop is
 * reconciled against its provider, in parallel. Rows whose cloud has no provider are skipped,
 * and so are rows this machine did not write: nobody asked, and the state file may have come
 * with the repository (a planted "terminating" row must not terminate anything).
 */
export async function reconcile(ctx: OpsContext): Promise<ReconcileOutcome[]> {
  const rows = await ctx.store.read((db) => listClusters(db));
  const todo = rows.filter((r) => isProviderCluster(r) && needsReconcile(r) && providerOf(ctx, r.provider));
  return Promise.all(todo.map(async (r) => {
    const notOurs = notOursReason(r);
    if (notOurs) {
      const message = `not reconciled: ${notOurs}; only an explicit command acts on it`;
      ctx.log(`reconcile ${r.name}: ${message}`);
      return { name: r.name, action: 'unchanged' as const, message };
    }
    try {
      const out = await reconcileOne(envFor(ctx, r.provider), r);
      if (out.action !== 'unchanged') ctx.log(`reconcile ${r.name}: ${out.action}${out.message ? ` (${out.message})` : ''}`);
      return out;
    } catch (e) {
      return { name: r.name, action: 'error' as const, message: (e as Error).message };
    }
  }));
}
