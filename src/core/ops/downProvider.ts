import { appendEvent, deleteClusterAfterProof, getClusterByUid, type ClusterRecord } from '../state';
import { downWithProof } from '../provision';
import { recordEnded } from '../cost/history';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { envFor } from './providerEnv';
import { releaseClusterIdentities } from './identityRelease';
import { removeClusterContainer } from './containerLaunch';
import type { ReachableHandle } from './clusterHandle';

export interface DownResult {
  cleaned: boolean;
  notes: string[];
}

/**
 * Down for a cloud cluster: terminate, poll until every instance of its uid is terminating or
 * terminated, and only then forget it. Unconfirmed: the row stays flagged "termination-
 * unconfirmed" and the error says how to retry; --purge forgets it anyway and says what that
 * skipped. Calling this again on a flagged row is the retry.
 */
export async function downProvider(ctx: OpsContext, row: ClusterRecord, purge: boolean): Promise<DownResult> {
  const env = envFor(ctx, row.provider);
  await ctx.connections.forget(row.name);
  ctx.progress(`Terminating ${row.name}'s instances and waiting for the cloud to confirm`);
  const r = await downWithProof(env, row);
  if (r.confirmed) {
    const notes = [r.deleted ? `termination confirmed in ${Math.round(r.confirmMs / 100) / 10} s` : 'it was already gone'];
    // A container went with its VM; one on this machine (the fake cloud's "instances") goes here.
    const h = row.handle ? (JSON.parse(row.handle) as Partial<ReachableHandle>) : {};
    if (h.local && h.container) notes.push(await removeClusterContainer(ctx, row) ?? '');
    // Not left to a background clean-up a CLI's exit would cut short: waited for, with proof.
    return { cleaned: true, notes: [...notes, ...(await releaseClusterIdentities(ctx, row))] };
  }
  if (!purge) {
    throw new OpsError('failed', `could not confirm that ${row.name}'s instances are terminated (${r.reason}). The cluster is kept and marked "termination unconfirmed": run "skydeck down ${row.name}" again to retry, or add --purge to forget it anyway`);
  }
  const ids = [...r.proof.pending.map((i) => `${i.id} (${i.status})`), ...r.proof.unseen];
  const note = `--purge: forgot ${row.name} without proof that its instances are gone${ids.length ? `: ${ids.join(', ')} may still be running` : ''}; "skydeck leaks" lists them`;
  // Only the uid this down looked at: a newer launch of the name is none of its business.
  const forgot = await ctx.store.write((db) => {
    const cur = getClusterByUid(db, row.uid);
    if (cur) recordEnded(db, cur, ctx.clock?.now() ?? Date.now());
    if (!deleteClusterAfterProof(db, row.uid)) return false;
    appendEvent(db, { cluster: row.name, kind: 'purge', message: note, data: { uid: row.uid, reason: r.reason } });
    return true;
  });
  if (!forgot) return { cleaned: false, notes: [`${row.name} (uid ${row.uid}) was already removed by another operation`] };
  return { cleaned: false, notes: [note] };
}
