import { getCluster, listClusters, RefusedRowError, type ClusterRecord } from '../state';
import type { OpsContext } from './context';
import { OpsError } from './errors';

/** The named cluster, UP; otherwise an error that says what exists and what to do. */
export async function requireCluster(ctx: OpsContext, name: string, mustBeUp = true): Promise<ClusterRecord> {
  const [c, all] = await ctx.store.read((db) => [getCluster(db, name), listClusters(db)] as const).catch((e) => {
    // A row that failed the read-time check is an error of the state, not of the command.
    throw e instanceof RefusedRowError ? new OpsError('failed', e.message) : e;
  });
  if (!c) {
    const names = all.map((x) => x.name);
    throw new OpsError('usage', `no cluster named "${name}"${names.length ? ` (clusters: ${names.join(', ')})` : ' (there are no clusters; launch one first)'}`);
  }
  if (mustBeUp && c.status !== 'UP') {
    throw new OpsError('failed', `cluster ${name} is ${c.status}${c.last_error ? ` (last error: ${c.last_error})` : ''}; launch it again or down it`);
  }
  return c;
}
