import { listBuckets, workspaceId } from '../state';
import { BUCKET_TAGS, type ListedBucket } from '../storage/buckets';
import type { StoreKind } from '../storage/types';
import { StorageError } from '../storage/errors';
import type { OpsContext } from './context';
import { bucketStoreOf, sweepLocation } from './bucketStores';

// The bucket half of the leak sweep: buckets carrying Skydeck's uid tag that no row of this
// state owns (same store, name and uid). What could not be listed is said, never folded into "none".

export interface LeakedBucketSweep {
  workspaceId: string;
  thisWorkspace: ListedBucket[];
  /** Tagged by another workspace: its own state may still own them. */
  otherWorkspaces: ListedBucket[];
  /** Stores listed completely. */
  listed: StoreKind[];
  /** Stores that could not be listed, with why. */
  errors: { store: StoreKind; message: string }[];
  /** Stores this build or setup cannot reach at all (so Skydeck created no bucket there), with why. */
  skipped: { store: StoreKind; message: string }[];
}

export async function findLeakedBuckets(ctx: OpsContext, stores: StoreKind[] = ['s3', 'r2', 'gcs', 'azure']): Promise<LeakedBucketSweep> {
  const ws = await ctx.store.write((db) => workspaceId(db));
  const rows = await ctx.store.read((db) => listBuckets(db));
  const owned = new Set(rows.map((r) => `${r.store}/${r.name}/${r.uid}`));
  const out: LeakedBucketSweep = { workspaceId: ws, thisWorkspace: [], otherWorkspaces: [], listed: [], errors: [], skipped: [] };
  await Promise.all(stores.map(async (store) => {
    let bs;
    try {
      bs = bucketStoreOf(ctx, store, sweepLocation(store));
    } catch (e) {
      (e instanceof StorageError && e.kind === 'config' ? out.skipped : out.errors).push({ store, message: (e as Error).message });
      return;
    }
    let found: ListedBucket[];
    try {
      found = await bs.listSkydeck();
    } catch (e) {
      // No credentials at all for a store: Skydeck could not have made a bucket there with them
      // either; said as skipped (with why), never as "none found".
      (e instanceof StorageError && e.kind === 'no-credentials' ? out.skipped : out.errors).push({ store, message: (e as Error).message });
      return;
    }
    out.listed.push(store);
    for (const b of found) {
      if (owned.has(`${b.store}/${b.name}/${b.tags[BUCKET_TAGS.uid]}`)) continue;
      (b.tags[BUCKET_TAGS.workspace] === ws ? out.thisWorkspace : out.otherWorkspaces).push(b);
    }
  }));
  return out;
}
