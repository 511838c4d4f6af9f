// Crashes in the two-call S3 create, against moto: a child process (bucketsUploadChild.ts, the
// real ensureNamedBuckets) is killed with SIGKILL while a proxy holds the next call, after the
// intent row and after CreateBucket (the kill during the upload is in bucketsOps.test.ts). Then
// reconcile: no bucket left without an owning row, and nothing claimed that no row made.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { deleteClusterBuckets, ensureNamedBuckets, findLeakedBuckets, reconcileBuckets } from '../../../src/core/ops';
import { getBucket, listBuckets, putBucket, thisCreator } from '../../../src/core/state';
import { BUCKET_TAGS } from '../../../src/core/storage/buckets';
import { startBucketsEnv, skipWithoutS3, type BucketsEnv } from './bucketsEnv';
import { bucketOps, bucketTask, clusterRow, dataDir, tmpRoot } from './bucketsOpsHelpers';
import { startHoldingProxy } from './holdingProxy';
import { PutBucketTaggingCommand, S3Client } from '@aws-sdk/client-s3';
import { DUMMY_CREDENTIALS } from '../../support/moto';

describe('bucket create: kill -9 between the steps, then reconcile (moto S3)', function () {
  this.timeout(120_000);
  let env: BucketsEnv;
  before(async function () {
    skipWithoutS3(this);
    env = await startBucketsEnv();
  });
  after(async () => env?.teardown());

  /** Runs the child through the proxy until `hold` matches a request, checks `before`, kills it. Returns the workspace. */
  async function killAt(name: string, hold: (method: string, p: string) => boolean): Promise<{ root: string; clusterUid: string }> {
    const root = tmpRoot();
    dataDir(root, 5);
    fs.writeFileSync(path.join(root, 'task.yaml'), `file_mounts:\n  /data: {name: ${name}, store: s3, source: ./data, persistent: false}\n`);
    const clusterUid = randomUUID();
    const proxy = await startHoldingProxy(env.moto.url);
    proxy.hold(hold);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'bucketsUploadChild.ts'), root, proxy.url, clusterUid], {
      stdio: ['ignore', 'pipe', 'pipe'], env: process.env,
    });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    try {
      await Promise.race([proxy.held(), exited.then(() => { throw new Error(`the child ended before the held call: ${err}`); })]);
      child.kill('SIGKILL');
      await exited;
    } finally {
      await proxy.close(); // the held call is dropped, never forwarded
    }
    return { root, clusterUid };
  }

  const isCreateBucket = (name: string) => (m: string, p: string) => m === 'PUT' && /^\/[^/?]+\/?(\?x-id=CreateBucket)?$/.test(p) && p.startsWith(`/${name}`);
  const isTagging = (name: string) => (m: string, p: string) => m === 'PUT' && p.startsWith(`/${name}`) && /[?&]tagging(=|&|$)/.test(p);

  it('killed after the intent row, before CreateBucket: reconcile drops the row, no bucket exists', async () => {
    const name = `sd-k1-${randomUUID().slice(0, 8)}`;
    const { root } = await killAt(name, isCreateBucket(name));
    const ctx = await bucketOps(root, env.moto.url);
    try {
      assert.equal((await ctx.store.read((db) => getBucket(db, 's3', name)))?.status, 'CREATING', 'the intent row was written first');
      const out = await reconcileBuckets(ctx);
      assert.deepEqual(out.map((o) => [o.name, o.action]), [[name, 'dropped']]);
      assert.equal(await env.s3().exists(name), false);
      assert.deepEqual(await ctx.store.read((db) => listBuckets(db)), []);
    } finally {
      ctx.dispose();
    }
  });

  it('killed after CreateBucket, before tagging: reconcile tags the bucket for its row, which then owns (and deletes) it', async () => {
    const name = `sd-k2-${randomUUID().slice(0, 8)}`;
    const { root, clusterUid } = await killAt(name, isTagging(name));
    const ctx = await bucketOps(root, env.moto.url);
    try {
      assert.equal(await env.s3().exists(name), true, 'CreateBucket went through');
      assert.deepEqual(await env.s3().tags(name), {}, 'the crash left it without tags');
      const out = await reconcileBuckets(ctx);
      assert.deepEqual(out.map((o) => [o.name, o.action]), [[name, 'ready']], JSON.stringify(out));
      const row = (await ctx.store.read((db) => getBucket(db, 's3', name)))!;
      assert.equal(row.status, 'READY');
      assert.equal((await env.s3().tags(name))[BUCKET_TAGS.uid], row.uid, 'the bucket carries its row\'s uid');
      const sweep = await findLeakedBuckets(ctx, ['s3']);
      assert.ok(![...sweep.thisWorkspace, ...sweep.otherWorkspaces].some((b) => b.name === name), 'not a leak: its row owns it');
      assert.match((await deleteClusterBuckets(ctx, clusterRow(clusterUid)))[0], /^deleted bucket .*HeadBucket → 404/);
    } finally {
      ctx.dispose();
    }
  });

  it('killed after CreateBucket, then launched again (no reconcile between): the launch tags it and reuses it', async () => {
    const name = `sd-k5-${randomUUID().slice(0, 8)}`;
    const { root, clusterUid } = await killAt(name, isTagging(name));
    const ctx = await bucketOps(root, env.moto.url);
    try {
      const task = bucketTask(fs.readFileSync(path.join(root, 'task.yaml'), 'utf8'), root);
      const [again] = await ensureNamedBuckets(ctx, task, root, clusterRow(clusterUid));
      assert.deepEqual([again.action, again.uploaded], ['reused', 5]);
      const row = (await ctx.store.read((db) => getBucket(db, 's3', name)))!;
      assert.equal(row.status, 'READY');
      assert.equal((await env.s3().tags(name))[BUCKET_TAGS.uid], row.uid);
      assert.match((await deleteClusterBuckets(ctx, clusterRow(clusterUid)))[0], /^deleted bucket .*HeadBucket → 404/);
    } finally {
      ctx.dispose();
    }
  });

  it('never claims a tagless bucket its CREATING row did not make (created long before the row), nor one with others\' tags', async () => {
    const root = tmpRoot();
    const ctx = await bucketOps(root, env.moto.url);
    try {
      const me = thisCreator();
      const [older, tagged] = [`sd-k3-${randomUUID().slice(0, 8)}`, `sd-k4-${randomUUID().slice(0, 8)}`];
      for (const n of [older, tagged]) await env.http.createBucket(n);
      await ctx.store.write((db) => {
        const base = {
          store: 's3' as const, location: JSON.stringify({ region: 'us-east-1' }), persistent: 1, owner_cluster_uid: null, status: 'CREATING' as const,
          created_by_user: me.user, created_by_machine: me.machine, last_error: null,
        };
        // The bucket exists 30 minutes "before" the row: the row cannot have made it.
        putBucket(db, { ...base, name: older, uid: randomUUID(), created_at: Date.now() + 30 * 60_000 });
        putBucket(db, { ...base, name: tagged, uid: randomUUID(), created_at: Date.now() });
      });
      const raw = new S3Client({ endpoint: env.moto.url, forcePathStyle: true, region: 'us-east-1', credentials: DUMMY_CREDENTIALS });
      await raw.send(new PutBucketTaggingCommand({ Bucket: tagged, Tagging: { TagSet: [{ Key: 'team', Value: 'data' }] } }));
      raw.destroy();
      const out = Object.fromEntries((await reconcileBuckets(ctx)).map((o) => [o.name, o]));
      assert.equal(out[older].action, 'unchanged');
      assert.match(out[older].message, /not claimed: it was created at .*, before Skydeck meant to create it/);
      assert.equal(out[tagged].action, 'unchanged');
      assert.match(out[tagged].message, /not claimed: it carries tags Skydeck did not write \(team\)/);
      assert.deepEqual(await env.s3().tags(older), {}, 'left untagged');
      assert.deepEqual(await env.s3().tags(tagged), { team: 'data' });
      for (const n of [older, tagged]) assert.equal(await env.s3().exists(n), true, `${n} is still there`);
    } finally {
      ctx.dispose();
    }
  });
});
