import { randomUUID } from 'node:crypto';
import {
  deleteBucketRow, getBucket, putBucket, RefusedBucketRowError, setBucketStatus, thisCreator, workspaceId,
  type BucketRecord, type ClusterRecord,
} from '../state';
import { StorageError } from '../storage/errors';
import { BUCKET_TAGS, type BucketStore } from '../storage/buckets';
import type { NamedBucketMount } from '../storage/types';
import type { Task } from '../task';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { bucketStoreOf, newBucketLocation, rowLocation, uploadFilesOf } from './bucketStores';
import { joinBucket, leaveBucket } from './bucketUsers';
import { claimOwner, releaseOwner, type Owner } from '../provision/owner';

// `name:` mounts at launch: create the bucket unless it exists (intent row first, so a crash
// mid-create leaves a row that reconcile resolves), then upload the local source's changed files.

export interface EnsuredBucket {
  dst: string;
  store: string;
  name: string;
  action: 'created' | 'reused' | 'foreign';
  uploaded: number;
  unchanged: number;
}

/** Creates or reuses every `name:` bucket of the task, then fills it; before the job is queued. */
export async function ensureNamedBuckets(ctx: OpsContext, task: Task, taskDir: string, cluster: ClusterRecord, signal?: AbortSignal): Promise<EnsuredBucket[]> {
  const out: EnsuredBucket[] = [];
  for (const [dst, fm] of Object.entries(task.fileMounts)) {
    if (fm.kind !== 'bucket' || fm.mount.kind !== 'named') continue;
    const m = fm.mount;
    const files = uploadFilesOf(dst, m, taskDir); // a missing source fails before anything is created
    // A cancelled launch stops here without failing: launch.ts then terminates the cluster it made.
    if (signal?.aborted) return cancelled(ctx, out);
    // This launch uses the bucket until its files are in: a down or delete meanwhile leaves it be.
    const owner = claimOwner();
    let uid: string | undefined;
    try {
      let bs: BucketStore;
      let action: EnsuredBucket['action'];
      try {
        ({ bs, action, uid } = await ensureOne(ctx, task, dst, m, cluster, owner, signal));
      } catch (e) {
        if (signal?.aborted) return cancelled(ctx, out);
        throw e;
      }
      const sent = await fill(ctx, bs, dst, m, files, signal);
      if (!sent) return cancelled(ctx, out);
      out.push({ dst, store: m.store, name: m.name, action, uploaded: sent.uploaded, unchanged: sent.unchanged });
    } finally {
      const held = uid;
      if (held) await ctx.store.write((db) => leaveBucket(db, m.store, m.name, held, owner)).catch(() => undefined);
      releaseOwner(owner);
    }
  }
  return out;
}

/** Sends the changed files; undefined if the launch was cancelled meanwhile. */
async function fill(
  ctx: OpsContext, bs: BucketStore, dst: string, m: NamedBucketMount, files: Map<string, string>, signal?: AbortSignal,
): Promise<{ uploaded: number; unchanged: number } | undefined> {
  let sent = { uploaded: 0, unchanged: 0 };
  if (files.size) {
    ctx.progress(`Uploading ${files.size} file(s) into ${m.store}://${m.name} (changed files only)`);
    let lastShown = -1;
    sent = await bs.upload(m.name, files, (p) => {
      const pct = p.totalBytes ? Math.floor((100 * p.bytes) / p.totalBytes) : 100;
      if (p.files === p.totalFiles || pct >= lastShown + 10) {
        lastShown = pct;
        ctx.progress(`Uploading into ${m.store}://${m.name}: ${p.files}/${p.totalFiles} files, ${pct}%`);
      }
    }, signal).catch((e) => {
      if (signal?.aborted) return undefined;
      throw asOps(dst, e);
    }) ?? { uploaded: 0, unchanged: 0 };
    if (signal?.aborted) return undefined;
    ctx.log(`bucket ${m.store}://${m.name}: ${sent.uploaded} file(s) uploaded, ${sent.unchanged} unchanged`);
  }
  return sent;
}

function cancelled(ctx: OpsContext, out: EnsuredBucket[]): EnsuredBucket[] {
  ctx.warn('bucket creation/upload stopped: the launch was cancelled (a later launch sends only what is missing)');
  return out;
}

function asOps(dst: string, e: unknown): Error {
  if (e instanceof StorageError) return new OpsError(e.kind === 'config' ? 'usage' : 'failed', `file_mounts ${dst}: ${e.message}`);
  if (e instanceof RefusedBucketRowError) return new OpsError('failed', `file_mounts ${dst}: ${e.message}`);
  return e as Error;
}

async function ensureOne(
  ctx: OpsContext, task: Task, dst: string, m: NamedBucketMount, cluster: ClusterRecord, owner: Owner, signal?: AbortSignal,
): Promise<{ bs: BucketStore; action: EnsuredBucket['action']; uid?: string }> {
  const label = `${m.store}://${m.name}`;
  try {
    // Joined as a user in the same transaction that sees it is not being deleted (bucketUsers.ts).
    const row = await ctx.store.write((db) => joinBucket(db, m.store, m.name, owner));
    if (row?.status === 'DELETING') {
      throw new OpsError('failed', `file_mounts ${dst}: bucket ${label} is being deleted (${row.last_error ?? 'a delete was interrupted'}); run "skydeck storage delete ${m.name}" to finish, then launch again`);
    }
    const bs = bucketStoreOf(ctx, m.store, row ? rowLocation(row) : newBucketLocation(m.store, task));
    if (row) {
      if (await bs.exists(m.name, signal)) {
        const uid = (await bs.tags(m.name, signal))[BUCKET_TAGS.uid];
        // A create of this row cut short before its tags (S3/R2): tagged now if the evidence holds.
        const adopted = uid !== row.uid && row.status === 'CREATING' && !uid && bs.adoptUntagged
          && !(await bs.adoptUntagged(m.name, await tagsFor(ctx, row), row.created_at, signal));
        if (uid !== row.uid && !adopted) {
          throw new OpsError('failed', `file_mounts ${dst}: bucket ${label} exists but does not carry the tag of the bucket Skydeck recorded (uid ${row.uid}); ` +
            `it may have been deleted and re-made by someone else. Use another name, or delete it with "skydeck storage delete ${m.name} --force"`);
        }
        if (row.status === 'CREATING') await ctx.store.write((db) => setBucketStatus(db, row.uid, 'READY'));
        ctx.progress(`Reusing bucket ${label}, which Skydeck created`);
        return { bs, action: 'reused', uid: row.uid };
      }
      // Recorded but gone (deleted outside Skydeck, or a create that never happened): make it again under the same row.
      await create(ctx, bs, m, row, signal);
      return { bs, action: 'created', uid: row.uid };
    }
    if (await bs.exists(m.name, signal)) {
      // SkyPilot reuses an existing bucket; Skydeck never records it as its own, so never deletes it.
      const note = m.persistent ? '' : '; persistent: false does not apply to it: Skydeck deletes only buckets it created';
      ctx.warn(`file_mounts ${dst}: using the existing bucket ${label} as it is (not created by Skydeck${note})`);
      return { bs, action: 'foreign' };
    }
    const me = thisCreator();
    const fresh: BucketRecord = {
      store: m.store, name: m.name, uid: randomUUID(), location: JSON.stringify(newBucketLocation(m.store, task)),
      persistent: m.persistent ? 1 : 0, owner_cluster_uid: m.persistent ? null : cluster.uid, status: 'CREATING',
      created_at: Date.now(), created_by_user: me.user, created_by_machine: me.machine, last_error: null, users: JSON.stringify([owner]),
    };
    // Intent first: a crash after this line leaves a row that reconcile settles. Only if no other
    // launch of this workspace wrote one meanwhile: CreateBucket does not tell two creators apart
    // (us-east-1 answers 200 to both), so the row is what makes one of them the creator.
    const other = await ctx.store.write((db) => {
      const row = getBucket(db, m.store, m.name);
      if (!row) putBucket(db, fresh);
      return row;
    });
    if (other) {
      throw new OpsError('failed', `file_mounts ${dst}: bucket ${label} is being created by another launch of this workspace (uid ${other.uid}); launch again once it has finished`);
    }
    await create(ctx, bs, m, fresh, signal);
    return { bs, action: 'created', uid: fresh.uid };
  } catch (e) {
    throw asOps(dst, e);
  }
}

async function tagsFor(ctx: OpsContext, row: BucketRecord): Promise<Record<string, string>> {
  return { [BUCKET_TAGS.uid]: row.uid, [BUCKET_TAGS.workspace]: await ctx.store.write((db) => workspaceId(db)) };
}

async function create(ctx: OpsContext, bs: BucketStore, m: NamedBucketMount, row: BucketRecord, signal?: AbortSignal): Promise<void> {
  const label = `${m.store}://${m.name}`;
  ctx.progress(`Creating bucket ${label}`);
  // The intent's time is the evidence reconcile weighs after a crash (s3Adopt.ts): now, also when
  // an old row's bucket is made again.
  const at = Date.now();
  await ctx.store.write((db) => db.run('UPDATE buckets SET created_at = ?, status = ? WHERE uid = ?', [at, 'CREATING', row.uid]));
  row = { ...row, created_at: at, status: 'CREATING' };
  try {
    await bs.create(m.name, await tagsFor(ctx, row), signal);
  } catch (e) {
    // Nothing was made (someone else's bucket, denied, …): the intent goes, unless the bucket is there after all.
    const there = await bs.exists(m.name).catch(() => true);
    await ctx.store.write((db) => (there ? setBucketStatus(db, row.uid, 'CREATING', (e as Error).message) : deleteBucketRow(db, row.uid)));
    throw e;
  }
  await ctx.store.write((db) => {
    // A reconcile that ran meanwhile may have dropped the intent: the bucket exists now, record it.
    if (!setBucketStatus(db, row.uid, 'READY')) putBucket(db, { ...row, status: 'READY' });
  });
  ctx.log(`created bucket ${label} (uid ${row.uid})`);
}
