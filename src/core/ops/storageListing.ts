// Buckets Skydeck created, as the Clusters view's Storage section and Delete Bucket see them.
// A thin adapter over the state's buckets table (src/core/state/buckets.ts): the UI needs only
// these shapes, so the table's own row type can change without touching the view.

import { getBucket, listBuckets as listBucketRows, listClusters, listRefusedBuckets, type StateStore } from '../state';
import type { StoreKind } from '../storage/types';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { deleteRecordedBucketForced } from './bucketDelete';

/** One bucket Skydeck created and recorded. */
export interface BucketListing {
  store: StoreKind;
  name: string;
  /** The row's status as recorded (e.g. READY, DELETING). */
  status: string;
  /** false: deleted when the owning cluster is torn down. */
  persistent: boolean;
  /** The cluster whose launch created it, while that cluster exists. */
  ownerCluster?: string;
  /** Something the user should know, e.g. a delete that was not confirmed. */
  problem?: string;
}

/** What Delete Bucket did: `deleted` only once the store confirmed the bucket is gone. */
export interface BucketDeleteResult {
  deleted: boolean;
  message: string;
}

/**
 * The buckets in this workspace's state, for the tree's Storage section: the rows of the
 * buckets table (refused rows are listed with their problem, never acted on).
 */
export async function listBuckets(store: StateStore): Promise<BucketListing[]> {
  const { rows, refused, clusters } = await store.read((db) => ({
    rows: listBucketRows(db), refused: listRefusedBuckets(db), clusters: listClusters(db),
  }));
  const owner = new Map(clusters.map((c) => [c.uid, c.name]));
  return [
    ...rows.map((r) => ({
      store: r.store, name: r.name, status: r.status, persistent: r.persistent !== 0,
      ...(r.owner_cluster_uid && owner.has(r.owner_cluster_uid) ? { ownerCluster: owner.get(r.owner_cluster_uid) } : {}),
      ...(r.last_error ? { problem: r.last_error } : {}),
    })),
    ...refused.map((r) => ({ store: 's3' as StoreKind, name: r.label, status: 'REFUSED', persistent: true, problem: r.problem })),
  ];
}

/**
 * Delete Bucket: a recorded bucket through its store, its row removed after proof; `force` also
 * deletes one whose tag is not its row's. A bucket not recorded here is refused (the tree lists
 * only recorded ones; `skydeck storage delete` handles the rest).
 */
export async function deleteBucket(ctx: OpsContext, name: string, store: StoreKind, force: boolean): Promise<BucketDeleteResult> {
  const row = await ctx.store.read((db) => getBucket(db, store, name));
  if (!row) throw new OpsError('usage', `${store}://${name} is not a bucket this workspace recorded; "skydeck storage delete ${name} --store ${store}" handles others`);
  const proof = await deleteRecordedBucketForced(ctx, row, force);
  return { deleted: true, message: `deleted bucket ${name} (uid ${row.uid}): ${proof.proof}` };
}
