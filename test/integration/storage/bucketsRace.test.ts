// Two launches that both create the same `name:` bucket at once (two clusters, one workspace):
// whatever each reports, the row left must own the bucket (its uid is the bucket's tag), so the
// owner's down deletes it and nothing leaks untracked.
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { deleteClusterBuckets, ensureNamedBuckets } from '../../../src/core/ops';
import { getBucket } from '../../../src/core/state';
import { BUCKET_TAGS } from '../../../src/core/storage/buckets';
import { startBucketsEnv, skipWithoutS3, type BucketsEnv } from './bucketsEnv';
import { bucketOps, bucketTask, clusterRow, dataDir, tmpRoot } from './bucketsOpsHelpers';

describe('bucket ops race (moto S3)', function () {
  let env: BucketsEnv;
  before(async function () {
    skipWithoutS3(this);
    env = await startBucketsEnv();
  });
  after(async () => env?.teardown());

  for (let round = 0; round < 3; round++) {
    it(`two launches creating one bucket at once leave a row that owns it (round ${round + 1})`, async () => {
      const root = tmpRoot();
      const ctx = await bucketOps(root, env.moto.url);
      try {
        const name = `sd-race-${randomUUID().slice(0, 8)}`;
        const src = dataDir(root, 2);
        const task = bucketTask(`file_mounts:\n  /d: {name: ${name}, store: s3, persistent: false, source: ${src}}\n`, root);
        const [a, b] = [clusterRow(), clusterRow()];
        const settled = await Promise.allSettled([ensureNamedBuckets(ctx, task, root, a), ensureNamedBuckets(ctx, task, root, b)]);
        const outcomes = settled.map((s) => (s.status === 'fulfilled' ? s.value[0].action : (s.reason as Error).message));
        // us-east-1 answers 200 to a second CreateBucket of one's own bucket: both used to say "created"
        // and tag it in turn, and whichever wrote its row last could own a bucket tagged with the other's uid.
        assert.equal(outcomes.filter((o) => o === 'created').length, 1, outcomes.join(' | '));
        const other = outcomes.find((o) => o !== 'created')!;
        assert.ok(other === 'reused' || /being created by another launch/.test(other), other);
        const row = await ctx.store.read((db) => getBucket(db, 's3', name));
        assert.ok(row, 'a row records the bucket');
        assert.equal((await env.s3().tags(name))[BUCKET_TAGS.uid], row.uid, 'the row\'s uid is the bucket\'s tag');
        const owner = row.owner_cluster_uid === a.uid ? a : b;
        await deleteClusterBuckets(ctx, owner);
        assert.equal(await env.s3().exists(name), false, 'the owner\'s down deleted it');
      } finally {
        ctx.dispose();
      }
    });
  }
});
