// Issue 16: rclone on a node signs for the region it is given, so each S3 bucket's region is
// looked up on this machine at plan time (HeadBucket's x-amz-bucket-region) and handed to
// rclone's `region` setting. moto's S3 holds buckets in two regions; a `name:` bucket that does
// not exist yet is asked again once it does.
import assert from 'node:assert/strict';
import type { OpsContext } from '../../../src/core/ops';
import { planBuckets } from '../../../src/core/ops/bucketPlan';
import { lookUpS3Regions } from '../../../src/core/ops/s3Regions';
import { rcloneRemote } from '../../../src/core/storage/rcloneRemote';
import { S3BucketStore } from '../../../src/core/storage/buckets/s3';
import { task } from '../../unit/task/helpers';
import { startBucketsEnv, skipWithoutS3, type BucketsEnv } from './bucketsEnv';

describe('storage: the region of each S3 bucket reaches rclone (moto, two regions)', function () {
  this.timeout(60_000);
  let env: BucketsEnv;
  let logs: string[];
  let ctx: OpsContext;

  before(async function () {
    skipWithoutS3(this);
    env = await startBucketsEnv();
    for (const [name, region] of [['reg-east', 'us-east-1'], ['reg-eu', 'eu-west-1']]) {
      const store = new S3BucketStore({ store: 's3', region, endpoint: env.moto.url });
      await store.create(name, {});
      store.destroy();
    }
  });
  after(async () => { await env?.teardown(); });
  beforeEach(() => {
    logs = [];
    // The built-in S3 store (the path a real launch takes), pointed at moto by the endpoint override.
    ctx = { storageCredentials: 'never', storageAccess: { endpoint: env.moto.url }, log: (m: string) => logs.push(m) } as unknown as OpsContext;
  });

  const regionEnv = (p: Awaited<ReturnType<typeof planBuckets>>[number]) =>
    rcloneRemote(p.mount.dst, p.mount.target, p.access).env.RCLONE_CONFIG_SKYDECK_REGION;

  it('each mount gets its own bucket\'s region, and rclone is configured with it', async () => {
    const plan = await planBuckets(ctx, task('file_mounts:\n  /a: s3://reg-east/x\n  /b: {source: s3://reg-eu, mode: COPY}\n'), 'aws');
    assert.deepEqual(plan.map((p) => [p.mount.dst, p.access.region, p.regionPending]), [['/a', 'us-east-1', undefined], ['/b', 'eu-west-1', undefined]]);
    assert.deepEqual(plan.map(regionEnv), ['us-east-1', 'eu-west-1']);
    assert.deepEqual(logs, []);
  });

  it('the looked-up region wins over a default region given for every mount', async () => {
    ctx.storageAccess = { endpoint: env.moto.url, region: 'us-east-1' };
    const plan = await planBuckets(ctx, task('file_mounts:\n  /b: s3://reg-eu\n'), 'aws');
    assert.equal(regionEnv(plan[0]), 'eu-west-1');
  });

  it('a bucket that does not exist yet is marked and asked again once it does', async () => {
    const plan = await planBuckets(ctx, task('file_mounts:\n  /n: {name: reg-later, store: s3}\n'), 'aws');
    assert.deepEqual([plan[0].access.region, plan[0].regionPending], [undefined, true]);
    const store = new S3BucketStore({ store: 's3', region: 'ap-southeast-2', endpoint: env.moto.url });
    await store.create('reg-later', {});
    store.destroy();
    await lookUpS3Regions(ctx, plan.filter((p) => p.regionPending));
    assert.deepEqual([plan[0].access.region, plan[0].regionPending], ['ap-southeast-2', undefined]);
    assert.equal(regionEnv(plan[0]), 'ap-southeast-2');
  });

  it('a lookup that cannot be made leaves the region unset and says so in the log', async () => {
    ctx.storageAccess = { endpoint: 'http://127.0.0.1:1' };
    const plan = await planBuckets(ctx, task('file_mounts:\n  /a: s3://reg-east\n'), 'aws');
    assert.equal(plan[0].access.region, undefined);
    assert.equal(regionEnv(plan[0]), undefined);
    assert.equal(logs.length, 1);
    assert.match(logs[0], /^file_mounts \/a: the region of s3:\/\/reg-east could not be looked up \(.+\); rclone on the node uses its default region$/);
  });
});
