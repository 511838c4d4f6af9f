// Bucket operations on moto's S3: `name:` buckets created (intent row first) or reused, filled
// with changed files only, deleted with proof at down; crash recovery and the leak sweep.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  deleteClusterBuckets, ensureNamedBuckets, findLeakedBuckets, reconcileBuckets,
} from '../../../src/core/ops';
import { getBucket, listBuckets, putBucket, thisCreator, workspaceId, type BucketRecord } from '../../../src/core/state';
import { BUCKET_TAGS } from '../../../src/core/storage/buckets';
import { startBucketsEnv, skipWithoutS3, type BucketsEnv } from './bucketsEnv';
import { bucketOps, bucketTask, clusterRow, dataDir, tmpRoot, type BucketOps } from './bucketsOpsHelpers';

const bucketName = () => `sd-ops-${randomUUID().slice(0, 8)}`;

describe('bucket ops (moto S3)', function () {
  let env: BucketsEnv;
  let ctx: BucketOps;
  let root: string;
  before(async function () {
    skipWithoutS3(this);
    env = await startBucketsEnv();
  });
  after(async () => env?.teardown());
  beforeEach(async () => {
    root = tmpRoot();
    ctx = await bucketOps(root, env.moto.url);
  });
  afterEach(() => ctx?.dispose());

  it('creates a non-persistent bucket owned by the cluster, reuses it on the next launch sending 0 files, deletes it at down with proof', async () => {
    const name = bucketName();
    dataDir(root, 20);
    const task = bucketTask(`file_mounts:\n  /data:\n    name: ${name}\n    store: s3\n    source: ./data\n    persistent: false\n`, root);
    const cluster = clusterRow();
    const [first] = await ensureNamedBuckets(ctx, task, root, cluster);
    assert.deepEqual({ action: first.action, uploaded: first.uploaded, unchanged: first.unchanged }, { action: 'created', uploaded: 20, unchanged: 0 });
    const row = (await ctx.store.read((db) => getBucket(db, 's3', name)))!;
    assert.equal(row.status, 'READY');
    assert.equal(row.owner_cluster_uid, cluster.uid);
    assert.equal(row.persistent, 0);
    const tags = await env.s3().tags(name);
    assert.equal(tags[BUCKET_TAGS.uid], row.uid);
    assert.equal(tags[BUCKET_TAGS.workspace], await ctx.store.write((db) => workspaceId(db)));
    assert.equal((await env.http.keys(name)).length, 20);
    assert.ok((await env.http.keys(name)).includes('sub/f1.txt'));

    const [again] = await ensureNamedBuckets(ctx, task, root, clusterRow());
    assert.deepEqual({ action: again.action, uploaded: again.uploaded, unchanged: again.unchanged }, { action: 'reused', uploaded: 0, unchanged: 20 });
    assert.equal((await ctx.store.read((db) => getBucket(db, 's3', name)))!.owner_cluster_uid, cluster.uid, 'the creator stays the owner');

    assert.deepEqual(await deleteClusterBuckets(ctx, clusterRow()), [], 'another cluster\'s down deletes nothing');
    const notes = await deleteClusterBuckets(ctx, cluster);
    assert.equal(notes.length, 1);
    assert.match(notes[0], new RegExp(`^deleted bucket ${name} \\(uid ${row.uid}\\): HeadBucket → 404`));
    assert.equal(await env.s3().exists(name), false);
    assert.deepEqual(await ctx.store.read((db) => listBuckets(db)), []);
  });

  it('a persistent bucket has no owner cluster and survives the down', async () => {
    const name = bucketName();
    const cluster = clusterRow();
    await ensureNamedBuckets(ctx, bucketTask(`file_mounts:\n  /ckpt: {name: ${name}, store: s3}\n`, root), root, cluster);
    assert.equal((await ctx.store.read((db) => getBucket(db, 's3', name)))!.owner_cluster_uid, null);
    assert.deepEqual(await deleteClusterBuckets(ctx, cluster), []);
    assert.equal(await env.s3().exists(name), true);
  });

  it('reuses a bucket Skydeck did not create as it is: no row, no tag, never deleted at down', async () => {
    const name = bucketName();
    await env.http.createBucket(name);
    const cluster = clusterRow();
    const [r] = await ensureNamedBuckets(ctx, bucketTask(`file_mounts:\n  /d: {name: ${name}, store: s3, persistent: false}\n`, root), root, cluster);
    assert.equal(r.action, 'foreign');
    assert.ok(ctx.lines.some((l) => /warn: .*using the existing bucket s3:\/\/.*not created by Skydeck; persistent: false does not apply/.test(l)), ctx.lines.join('\n'));
    assert.deepEqual(await ctx.store.read((db) => listBuckets(db)), []);
    assert.deepEqual(await env.s3().tags(name), {});
    assert.deepEqual(await deleteClusterBuckets(ctx, cluster), []);
    assert.equal(await env.s3().exists(name), true);
  });

  it('never deletes a recorded bucket whose tag is not its row\'s', async () => {
    const name = bucketName();
    await env.http.createBucket(name); // same name, someone else's bucket
    const cluster = clusterRow();
    await ctx.store.write((db) => putBucket(db, rowOf(name, { persistent: 0, owner_cluster_uid: cluster.uid, status: 'READY' })));
    const notes = await deleteClusterBuckets(ctx, cluster);
    assert.match(notes[0], /was NOT deleted: .*no Skydeck tag/);
    assert.equal(await env.s3().exists(name), true);
    assert.equal((await ctx.store.read((db) => getBucket(db, 's3', name)))!.status, 'DELETING');
  });

  it('reconcile: drops a CREATING row whose bucket never came, adopts one whose bucket carries its uid, re-deletes a DELETING one', async () => {
    const never = rowOf(bucketName());
    const made = rowOf(bucketName());
    const deleting = rowOf(bucketName(), { status: 'DELETING' });
    for (const r of [never, made, deleting]) await ctx.store.write((db) => putBucket(db, r));
    await env.s3().create(made.name, { [BUCKET_TAGS.uid]: made.uid });
    await env.s3().create(deleting.name, { [BUCKET_TAGS.uid]: deleting.uid });
    const out = await reconcileBuckets(ctx);
    const by = Object.fromEntries(out.map((o) => [o.name, o]));
    assert.equal(by[never.name].action, 'dropped');
    assert.equal(by[made.name].action, 'ready');
    assert.equal(by[deleting.name].action, 'deleted');
    assert.match(by[deleting.name].message, /HeadBucket → 404/);
    assert.deepEqual((await ctx.store.read((db) => listBuckets(db))).map((r) => [r.name, r.status]), [[made.name, 'READY']]);
    assert.equal(await env.s3().exists(deleting.name), false);
  });

  it('the leak sweep lists Skydeck-tagged buckets no row owns, this workspace\'s and others\' apart', async () => {
    const ws = await ctx.store.write((db) => workspaceId(db));
    const mine = bucketName();
    const theirs = bucketName();
    await env.s3().create(mine, { [BUCKET_TAGS.uid]: randomUUID(), [BUCKET_TAGS.workspace]: ws });
    await env.s3().create(theirs, { [BUCKET_TAGS.uid]: randomUUID(), [BUCKET_TAGS.workspace]: 'other000' });
    const owned = bucketName();
    await ensureNamedBuckets(ctx, bucketTask(`file_mounts:\n  /o: {name: ${owned}, store: s3}\n`, root), root, clusterRow());
    const sweep = await findLeakedBuckets(ctx, ['s3', 'gcs']);
    assert.deepEqual(sweep.errors, []);
    assert.deepEqual(sweep.skipped.map((s) => s.store), ['gcs']);
    assert.ok(sweep.thisWorkspace.some((b) => b.name === mine));
    assert.ok(sweep.otherWorkspaces.some((b) => b.name === theirs));
    assert.ok(![...sweep.thisWorkspace, ...sweep.otherWorkspaces].some((b) => b.name === owned), 'a bucket its row owns is no leak');
    for (const b of [mine, theirs, owned]) await env.s3().delete(b);
  });

  it('a cancelled launch stops the upload without failing (launch then terminates what it made); the row keeps the bucket', async () => {
    const name = bucketName();
    dataDir(root, 60);
    const task = bucketTask(`file_mounts:\n  /data: {name: ${name}, store: s3, source: ./data, persistent: false}\n`, root);
    const ac = new AbortController();
    ctx.progress = (s) => {
      ctx.lines.push(s);
      const m = /: (\d+)\/\d+ files/.exec(s);
      if (m && Number(m[1]) >= 5) ac.abort();
    };
    await ensureNamedBuckets(ctx, task, root, clusterRow(), ac.signal);
    assert.ok(ctx.lines.some((l) => /warn: bucket creation\/upload stopped: the launch was cancelled/.test(l)), ctx.lines.join('\n'));
    const sent = (await env.http.keys(name)).length;
    assert.ok(sent >= 5 && sent < 60, `${sent} objects sent`);
    assert.equal((await ctx.store.read((db) => getBucket(db, 's3', name)))!.status, 'READY');
    await env.s3().delete(name);
  });

  it('kill -9 in the middle of an upload of many files: the row owns the bucket, nothing leaks, the next launch sends only the rest', async function () {
    const name = bucketName();
    const n = 300;
    dataDir(root, n);
    fs.writeFileSync(path.join(root, 'task.yaml'), `file_mounts:\n  /data: {name: ${name}, store: s3, source: ./data, persistent: false}\n`);
    const clusterUid = randomUUID();
    ctx.dispose(); // the child writes the state; reopened below
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'bucketsUploadChild.ts'), root, env.moto.url, clusterUid], {
      stdio: ['ignore', 'pipe', 'pipe'], env: process.env,
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // Killed once the upload is under way: some objects are in the bucket, not all.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = [...out.matchAll(/: (\d+)\/(\d+) files/g)].at(-1);
        if (m && Number(m[1]) >= 20) resolve();
        if (/DONE/.test(out)) reject(new Error('the upload finished before it could be killed'));
      });
      child.on('exit', () => reject(new Error(`child exited early: ${err}`)));
    });
    child.kill('SIGKILL');
    await exited;
    const sent = (await env.http.keys(name)).length;
    assert.ok(sent > 0 && sent < n, `${sent} of ${n} objects were sent before the kill`);

    ctx = await bucketOps(root, env.moto.url);
    await reconcileBuckets(ctx);
    const row = (await ctx.store.read((db) => getBucket(db, 's3', name)))!;
    assert.ok(row, 'the row survives the kill');
    assert.equal(row.owner_cluster_uid, clusterUid);
    assert.equal((await env.s3().tags(name))[BUCKET_TAGS.uid], row.uid, 'the row owns the bucket');
    const sweep = await findLeakedBuckets(ctx, ['s3']);
    assert.ok(![...sweep.thisWorkspace, ...sweep.otherWorkspaces].some((b) => b.name === name), 'not listed as a leak: its row owns it');

    const task = bucketTask(fs.readFileSync(path.join(root, 'task.yaml'), 'utf8'), root);
    const [next] = await ensureNamedBuckets(ctx, task, root, clusterRow(clusterUid));
    assert.equal(next.action, 'reused');
    assert.equal(next.unchanged, sent);
    assert.equal(next.uploaded, n - sent);
    assert.match((await deleteClusterBuckets(ctx, clusterRow(clusterUid)))[0], /^deleted bucket .*HeadBucket → 404/);
  });
});

function rowOf(name: string, over: Partial<BucketRecord> = {}): BucketRecord {
  const me = thisCreator();
  return {
    store: 's3', name, uid: randomUUID(), location: JSON.stringify({ region: 'us-east-1' }), persistent: 1, owner_cluster_uid: null,
    status: 'CREATING', created_at: Date.now(), created_by_user: me.user, created_by_machine: me.machine, last_error: null, ...over,
  };
}
