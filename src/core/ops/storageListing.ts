// Buckets Skydeck created, as the Clusters view's Storage section and Delete Bucket see them.
// A thin adapter over the state's buckets table (src/core/state/buckets.ts): the UI needs only
// these shapes, so the table's own row type can change without touching the view.

import type { StateStore } from '../state';
import type { StoreKind } from '../storage/types';
import type { OpsContext } from './context';
import { OpsError } from './errors';

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

/** The buckets in this workspace's state, for the tree and `skydeck storage ls`. */
export async function listBuckets(store: StateStore): Promise<BucketListing[]> {
  return readBucketsTable(store);
}

/** Deletes a bucket Skydeck created (with proof); `force` also deletes one it did not create. */
export async function deleteBucket(ctx: OpsContext, name: string, store: StoreKind, force: boolean): Promise<BucketDeleteResult> {
  return deleteRecordedBucket(ctx, name, store, force);
}

/**
 * Reads the rows of the state's buckets table. This build has no buckets table, so it holds no
 * rows; the state module that defines the table replaces this body.
 */
export async function readBucketsTable(_store: StateStore): Promise<BucketListing[]> {
  return [];
}

/**
 * Deletes a recorded bucket through its store and removes its row after proof. This build has
 * no bucket stores wired to the state, so it refuses; the bucket operations replace this body.
 */
export async function deleteRecordedBucket(_ctx: OpsContext, name: string, store: StoreKind, _force: boolean): Promise<BucketDeleteResult> {
  throw new OpsError('unavailable', `deleting ${store} bucket ${name} is not available in this build`);
}
