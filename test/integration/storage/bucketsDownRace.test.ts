// A down racing a launch on the same `name:` bucket (moto S3; a proxy holds one call so the two
// overlap for certain, whatever the machine's speed). Either order must end with the bucket
// recorded while it exists: a down never empties a bucket a launch is filling, and a launch
// never fills one a down is deleting.
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { deleteClusterBuckets, ensureNamedBuckets } from '../../../src/core/ops';
import { getBucket } from '../../../src/core/state';
import { BUCKET_TAGS } from '../../../src/core/storage/buckets';
import { startBucketsEnv, skipWithoutS3, type BucketsEnv } from './bucketsEnv';
import { bucketOps, bucketTask, clusterRow, dataDir, tmpRoot } from './bucketsOpsHelpers';
import { startHoldingProxy, type HoldingProxy } from './holdingProxy';

describe('bucket ops: a down racing an upload (moto S3)', function () {
  this.timeout(120_000);
  let env: BucketsEnv;
  let proxy: HoldingProxy;
  before(async function () {
    skipWithoutS3(this);
    env = await startBucketsEnv();
  });
  after(async () => env?.teardown());
  beforeEach(async () => { proxy = await startHoldingProxy(env.moto.url); });
  afterEach(async () => {
    proxy.release();
    await proxy.close();
  });

  async function setUp(n: number) {
    const root = tmpRoot();
    const ctx = await bucketOps(root, proxy.url, 1);
    const name = `sd-dr-${randomUUID().slice(0, 8)}`;
    const src = dataDir(root, n);
    const task = bucketTask(`file_mounts:\n  /d: {name: ${name}, store: s3, persistent: false, source: ${src}}\n`, root);
    return { ctx, name, task, root, cluster: clusterRow() };
  }

  it('a down while a launch uploads into the bucket leaves it (and its row) alone; after the upload a down deletes it', async () => {
    const { ctx, name, task, root, cluster } = await setUp(6);
    try {
      await ensureNamedBuckets(ctx, task, root, cluster); // created and filled
      dataDir(root, 8); // two more files: the relaunch uploads them
      proxy.hold((m, p) => m === 'PUT' && p.startsWith(`/${name}/`));
      const relaunch = ensureNamedBuckets(ctx, task, root, cluster);
      await proxy.held();
      const notes = await deleteClusterBuckets(ctx, cluster);
      assert.equal(notes.length, 1);
      assert.match(notes[0], /was NOT deleted: .*a launch is using the bucket right now \(pid \d+/);
      const row = (await ctx.store.read((db) => getBucket(db, 's3', name)))!;
      assert.equal(row.status, 'READY', 'not marked for deletion: the launch goes on');
      proxy.release();
      const [done] = await relaunch;
      assert.deepEqual([done.action, done.uploaded, done.unchanged], ['reused', 2, 6]);
      assert.equal((await env.s3().tags(name))[BUCKET_TAGS.uid], row.uid, 'the bucket is still the row\'s');
      // Once the launch is done it no longer counts as a user: the retry deletes it.
      assert.match((await deleteClusterBuckets(ctx, cluster))[0], /^deleted bucket .*HeadBucket → 404/);
      assert.equal(await ctx.store.read((db) => getBucket(db, 's3', name)), undefined);
    } finally {
      ctx.dispose();
    }
  });

  it('a launch while a down deletes the bucket is refused; the down finishes, and no bucket is left without a row', async () => {
    const { ctx, name, task, root, cluster } = await setUp(3);
    try {
      await ensureNamedBuckets(ctx, task, root, cluster);
      proxy.hold((m, p) => m === 'DELETE' && /^\/[^/?]+\/?(\?|$)/.test(p) && p.startsWith(`/${name}`)); // DeleteBucket
      const downing = deleteClusterBuckets(ctx, cluster);
      await proxy.held();
      assert.equal((await ctx.store.read((db) => getBucket(db, 's3', name)))!.status, 'DELETING');
      await assert.rejects(ensureNamedBuckets(ctx, task, root, cluster), /bucket s3:\/\/.* is being deleted/);
      proxy.release();
      assert.match((await downing)[0], /^deleted bucket .*HeadBucket → 404/);
      assert.equal(await env.s3().exists(name), false);
      assert.equal(await ctx.store.read((db) => getBucket(db, 's3', name)), undefined);
    } finally {
      ctx.dispose();
    }
  });
});
