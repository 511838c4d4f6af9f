import {
  deleteBucketRow, getBucket, listBuckets, notOursReason, setBucketStatus, workspaceId, type BucketRecord, type ClusterRecord,
} from '../state';
import { StorageError } from '../storage/errors';
import { BUCKET_TAGS, type DeleteProof } from '../storage/buckets';
import type { OpsContext } from './context';
import { bucketStoreOf, rowLocation } from './bucketStores';
import { describeUsers, liveUsers } from './bucketUsers';

// Deleting buckets Skydeck created: mark the row DELETING, delete with proof, and only then drop
// the row. A bucket whose tag is not the row's uid is never deleted (it is no longer ours).

/**
 * Deletes the bucket of `row` with proof and then its row. A bucket already absent is proved
 * absent the same way (HeadBucket → 404, …).
 */
export async function deleteRecordedBucket(ctx: OpsContext, row: BucketRecord, signal?: AbortSignal): Promise<DeleteProof> {
  const label = `${row.store}://${row.name}`;
  const bs = bucketStoreOf(ctx, row.store, rowLocation(row));
  // DELETING only if no launch is filling it, decided in one transaction with the launches' joins.
  const busy = await ctx.store.write((db) => {
    const cur = getBucket(db, row.store, row.name);
    const users = cur?.uid === row.uid ? liveUsers(cur) : [];
    if (!users.length) setBucketStatus(db, row.uid, 'DELETING');
    return users;
  });
  if (busy.length) {
    throw new StorageError('in-use', label, `a launch is using the bucket right now (${describeUsers(busy)}); it was not touched`,
      `Run "skydeck storage delete ${row.name}" once that launch has finished.`);
  }
  try {
    if (await bs.exists(row.name, signal)) {
      const uid = (await bs.tags(row.name, signal))[BUCKET_TAGS.uid];
      if (uid !== row.uid) {
        throw new StorageError('not-ours', label, `the bucket carries ${uid ? `another Skydeck uid (${uid})` : 'no Skydeck tag'}, not this row's ${row.uid}`,
          `It is not the bucket Skydeck created, so it is left alone; "skydeck storage delete ${row.name} --force" deletes it anyway.`);
      }
    }
    const proof = await bs.delete(row.name, signal);
    await ctx.store.write((db) => deleteBucketRow(db, row.uid));
    return proof;
  } catch (e) {
    await ctx.store.write((db) => setBucketStatus(db, row.uid, 'DELETING', (e as Error).message)).catch(() => undefined);
    throw e;
  }
}

/**
 * An explicit delete (CLI, Delete Bucket): as deleteRecordedBucket; with `force`, a bucket whose
 * tag is not its row's (not the one Skydeck created) is deleted anyway and the row dropped.
 */
export async function deleteRecordedBucketForced(ctx: OpsContext, row: BucketRecord, force: boolean, signal?: AbortSignal): Promise<DeleteProof> {
  try {
    return await deleteRecordedBucket(ctx, row, signal);
  } catch (e) {
    if (!force || !(e instanceof StorageError && e.kind === 'not-ours')) throw e;
    const proof = await bucketStoreOf(ctx, row.store, rowLocation(row)).delete(row.name, signal);
    await ctx.store.write((db) => deleteBucketRow(db, row.uid));
    return proof;
  }
}

/**
 * At down, once the cluster is proved gone: deletes with proof every non-persistent bucket it
 * created. Returns one note per bucket; a failure is a note (the row stays DELETING for a retry
 * with "skydeck storage delete"), never a reason to keep the cluster's row.
 */
export async function deleteClusterBuckets(ctx: OpsContext, cluster: ClusterRecord): Promise<string[]> {
  const rows = await ctx.store.read((db) => listBuckets(db));
  const notes: string[] = [];
  for (const row of rows.filter((r) => r.persistent === 0 && r.owner_cluster_uid === cluster.uid)) {
    try {
      const p = await deleteRecordedBucket(ctx, row);
      const line = `deleted bucket ${row.name} (uid ${row.uid}): ${p.proof}`;
      ctx.log(line);
      notes.push(line);
    } catch (e) {
      const line = `bucket ${row.store}://${row.name} (uid ${row.uid}) was NOT deleted: ${(e as Error).message}; retry with "skydeck storage delete ${row.name}"`;
      ctx.warn(line);
      notes.push(line);
    }
  }
  return notes;
}

/** A CREATING row's bucket without its tag: tagged if the store's evidence says the row made it (s3Adopt.ts). */
async function adopt(ctx: OpsContext, row: BucketRecord): Promise<Pick<BucketReconcileOutcome, 'action' | 'message'>> {
  const bs = bucketStoreOf(ctx, row.store, rowLocation(row));
  const why = bs.adoptUntagged
    ? await bs.adoptUntagged(row.name, { [BUCKET_TAGS.uid]: row.uid, [BUCKET_TAGS.workspace]: await ctx.store.write((db) => workspaceId(db)) }, row.created_at)
    : 'this store sets tags in the create itself, so a bucket without them is not the one Skydeck made';
  if (why) return { action: 'unchanged', message: `the bucket exists without this row's tag and is not claimed: ${why}; nothing is done` };
  await ctx.store.write((db) => setBucketStatus(db, row.uid, 'READY'));
  return { action: 'ready', message: 'the create was interrupted before the bucket was tagged; the row\'s evidence holds (no tags, created just after the row), so it is tagged now and the row owns it' };
}

export interface BucketReconcileOutcome {
  store: string;
  name: string;
  action: 'dropped' | 'ready' | 'deleted' | 'unchanged' | 'error';
  message: string;
}

/**
 * Crash recovery for bucket rows this machine wrote: a CREATING row whose bucket does not exist
 * is dropped (the create never happened); one whose bucket carries its uid is READY; a DELETING
 * row is deleted again, with proof. Rows from elsewhere are left for an explicit command.
 */
export async function reconcileBuckets(ctx: OpsContext): Promise<BucketReconcileOutcome[]> {
  const rows = await ctx.store.read((db) => listBuckets(db));
  const out: BucketReconcileOutcome[] = [];
  for (const row of rows.filter((r) => r.status !== 'READY')) {
    const base = { store: row.store, name: row.name };
    const notOurs = notOursReason(row);
    if (notOurs) {
      out.push({ ...base, action: 'unchanged', message: `not reconciled: ${notOurs}` });
      continue;
    }
    const users = liveUsers(row);
    if (users.length) {
      out.push({ ...base, action: 'unchanged', message: `a launch is working on it now (${describeUsers(users)}); left to it` });
      continue;
    }
    try {
      if (row.status === 'DELETING') {
        const p = await deleteRecordedBucket(ctx, row);
        out.push({ ...base, action: 'deleted', message: `deleted bucket ${row.name} (uid ${row.uid}): ${p.proof}` });
        continue;
      }
      const bs = bucketStoreOf(ctx, row.store, rowLocation(row));
      if (!(await bs.exists(row.name))) {
        await ctx.store.write((db) => deleteBucketRow(db, row.uid));
        out.push({ ...base, action: 'dropped', message: 'the create was interrupted before the bucket existed; the row is dropped' });
      } else if ((await bs.tags(row.name))[BUCKET_TAGS.uid] === row.uid) {
        await ctx.store.write((db) => setBucketStatus(db, row.uid, 'READY'));
        out.push({ ...base, action: 'ready', message: 'the bucket exists with this row\'s tag; the row now owns it' });
      } else {
        out.push({ ...base, ...(await adopt(ctx, row)) });
      }
    } catch (e) {
      out.push({ ...base, action: 'error', message: (e as Error).message });
    }
  }
  return out;
}
