// How each bucket mount will authenticate, decided before provisioning: the VM's identity on the
// store's own cloud; elsewhere the user's keys only with the opt-in, S3 only for now.
import assert from 'node:assert/strict';
import { planBuckets } from '../../../src/core/ops/bucketPlan';
import type { OpsContext } from '../../../src/core/ops';
import { OpsError } from '../../../src/core/ops/errors';
import { task } from '../task/helpers';

const ctxOf = (share: boolean): OpsContext => ({ storageCredentials: share ? 'share' : 'never', storageAccess: { endpoint: 'http://127.0.0.1:1' } }) as OpsContext;

describe('ops: bucket mount credentials are planned before provisioning', () => {
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY, profile: process.env.AWS_PROFILE };
  before(() => {
    delete process.env.AWS_PROFILE;
    process.env.AWS_ACCESS_KEY_ID = 'AKIDPLAN';
    process.env.AWS_SECRET_ACCESS_KEY = 'plan-secret';
  });
  after(() => {
    for (const [k, v] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret], ['AWS_PROFILE', saved.profile]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  const t = task('file_mounts:\n  /big/inner: {source: s3://bkt/p, mode: COPY}\n  /big: {source: s3://bkt, mode: MOUNT}\n');

  it('on a GCP/Azure node reading its own cloud\'s store: the VM identity, no opt-in needed, parents first, overrides applied', async () => {
    const g = task('file_mounts:\n  /big/inner: {source: gs://bkt/p, mode: COPY}\n  /big: {source: gs://bkt, mode: MOUNT}\n');
    const plan = await planBuckets(ctxOf(false), g, 'gcp');
    assert.deepEqual(plan.map((p) => [p.mount.dst, p.mount.mode, p.access.credentials.kind, p.access.endpoint, p.shared]), [
      ['/big', 'MOUNT', 'vm', 'http://127.0.0.1:1', undefined],
      ['/big/inner', 'COPY', 'vm', 'http://127.0.0.1:1', undefined],
    ]);
  });

  it('on AWS reading S3: the instance profile (VM identity), no opt-in needed, and no keys shared even with the opt-in', async () => {
    for (const share of [false, true]) {
      const plan = await planBuckets(ctxOf(share), t, 'aws');
      assert.deepEqual(plan.map((p) => [p.mount.dst, p.access.credentials.kind, p.shared]), [['/big', 'vm', undefined], ['/big/inner', 'vm', undefined]]);
    }
  });

  it('on AWS reading GCS without the opt-in: refused, naming the AWS node', async () => {
    await assert.rejects(planBuckets(ctxOf(false), task('file_mounts:\n  /x: gs://ggg\n'), 'aws'), (e: Error) => e instanceof OpsError && e.kind === 'usage'
      && /^file_mounts \/x: gs:\/\/ggg: an AWS node has no identity .* to read GCS with/.test(e.message));
  });

  it('on ssh without the opt-in: refused, saying how to opt in', async () => {
    await assert.rejects(planBuckets(ctxOf(false), t, 'ssh'), (e: Error) => e instanceof OpsError && e.kind === 'usage'
      && /^file_mounts \/big: s3:\/\/bkt: an ssh pool host has no identity .* skydeck\.storage\.shareCredentials/.test(e.message));
  });

  it('on ssh or another cloud with the opt-in: the keys of the SDK\'s default chain, marked as shared', async () => {
    for (const cloud of ['ssh', 'gcp']) {
      const plan = await planBuckets(ctxOf(true), t, cloud);
      assert.deepEqual(plan.map((p) => [p.access.credentials, p.shared]), [0, 1].map(() => [
        { kind: 'keys', accessKeyId: 'AKIDPLAN', secretAccessKey: 'plan-secret' }, 'AWS']));
    }
  });

  it('GCS, Azure and R2 away from their own cloud: sharing is not built for them, said as such', async () => {
    for (const url of ['gs://ggg', 'r2://rrr', 'https://acct.blob.core.windows.net/ccc']) {
      await assert.rejects(planBuckets(ctxOf(true), task(`file_mounts:\n  /x: ${url}\n`), 'ssh'),
        (e: Error) => e instanceof OpsError && e.kind === 'unavailable' && /sharing your credentials is implemented for S3 buckets only/.test(e.message));
    }
    assert.equal((await planBuckets(ctxOf(false), task('file_mounts:\n  /x: gs://ggg\n'), 'gcp'))[0].access.credentials.kind, 'vm');
  });
});
