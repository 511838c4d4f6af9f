import { findLeakedBuckets, type OpsContext } from '../../core/ops';
import { getClusterByUid, listBuckets, listRefusedBuckets } from '../../core/state';
import { BUCKET_TAGS, type ListedBucket } from '../../core/storage/buckets';
import type { CliIO } from '../io';
import { EXIT } from '../io';
import { ago, table } from '../table';

/** `skydeck storage ls`: the recorded buckets; with --leaks, the tagged buckets no row owns. */
export async function storageLs(io: CliIO, ctx: OpsContext, leaks: boolean): Promise<number> {
  const { rows, refused, owners } = await ctx.store.read((db) => {
    const rows = listBuckets(db);
    const owners = new Map<string, string>();
    for (const r of rows) {
      if (!r.owner_cluster_uid) continue;
      const c = (() => { try { return getClusterByUid(db, r.owner_cluster_uid!); } catch { return undefined; } })();
      owners.set(r.owner_cluster_uid, c ? c.name : `(gone: uid ${r.owner_cluster_uid.slice(0, 8)})`);
    }
    return { rows, refused: listRefusedBuckets(db), owners };
  });
  for (const r of refused) io.err(`warning: bucket row ${r.label} is not one Skydeck wrote (${r.problem}); it is ignored\n`);
  if (!rows.length) io.out('No buckets created by Skydeck are recorded in this workspace.\n');
  else {
    io.out(table(['NAME', 'STORE', 'STATUS', 'OWNER CLUSTER', 'PERSISTENT', 'CREATED', 'ERROR'], rows.map((r) => [
      r.name, r.store, r.status, r.owner_cluster_uid ? owners.get(r.owner_cluster_uid) ?? '-' : '-', r.persistent ? 'yes' : 'no (deleted at down)',
      ago(r.created_at / 1000), r.last_error ? r.last_error.slice(0, 120) : '',
    ])));
  }
  if (!leaks) return EXIT.ok;
  const sweep = await findLeakedBuckets(ctx);
  for (const e of sweep.skipped) io.err(`note: ${e.store} not listed: ${e.message}\n`);
  for (const e of sweep.errors) io.err(`warning: could not list ${e.store} buckets: ${e.message}; strays there are unknown\n`);
  const verdict = (n: number) => (sweep.errors.length ? `${n} found where listed; UNKNOWN in ${sweep.errors.map((e) => e.store).join(', ')}` : n ? `${n} found` : 'none');
  const print = (title: string, list: ListedBucket[]) => {
    io.out(`${title}: ${verdict(list.length)}${list.length ? ':' : '.'}\n`);
    if (list.length) {
      io.out(table(['NAME', 'STORE', 'UID', 'WORKSPACE', 'WHERE'], list.map((b) => [
        b.name, b.store, b.tags[BUCKET_TAGS.uid] ?? '-', b.tags[BUCKET_TAGS.workspace] ?? '-', b.location.region ?? b.location.account ?? '-',
      ])));
    }
  };
  print(`Skydeck buckets no row owns, of this workspace (${sweep.workspaceId})`, sweep.thisWorkspace);
  print('Skydeck buckets of other workspaces (check there before deleting)', sweep.otherWorkspaces);
  if (sweep.thisWorkspace.length) io.out('Delete with: skydeck storage delete NAME --store STORE\n');
  return sweep.errors.length ? EXIT.failed : EXIT.ok;
}
