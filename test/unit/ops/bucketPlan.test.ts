// How each bucket mount will authenticate, decided before provisioning: no node has a VM identity
// for buckets yet, so the user's own credentials go to it only with the opt-in.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { planBuckets } from '../../../src/core/ops/bucketPlan';
import type { OpsContext } from '../../../src/core/ops';
import { OpsError } from '../../../src/core/ops/errors';
import { task } from '../task/helpers';

const ctxOf = (share: boolean): OpsContext => ({ storageCredentials: share ? 'share' : 'never', storageAccess: { endpoint: 'http://127.0.0.1:1' }, log: () => undefined }) as unknown as OpsContext;

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

  it('on GCP or Azure reading their own store (no VM identity for buckets yet): refused before provisioning without the opt-in; the shared credentials with it, parents first', async () => {
    for (const [cloud, url, node] of [['gcp', 'gs://bkt', 'a GCP'], ['azure', 'https://acct.blob.core.windows.net/bkt', 'an Azure']]) {
      await assert.rejects(planBuckets(ctxOf(false), task(`file_mounts:\n  /x: ${url}\n`), cloud), (e: Error) => e instanceof OpsError && e.kind === 'usage'
        && new RegExp(`${node} node \\(Skydeck does not yet give ${node.split(' ')[1]} nodes an identity with access to buckets\\) has no identity .* skydeck\\.storage\\.shareCredentials`).test(e.message), cloud);
    }
    const plan = await planBuckets(ctxOf(true), t, 'gcp');
    assert.deepEqual(plan.map((p) => [p.mount.dst, p.mount.mode, p.access.credentials.kind, p.access.endpoint, p.shared]), [
      ['/big', 'MOUNT', 'keys', 'http://127.0.0.1:1', 'AWS'],
      ['/big/inner', 'COPY', 'keys', 'http://127.0.0.1:1', 'AWS'],
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

  it('GCS with the opt-in: a service-account key from GOOGLE_APPLICATION_CREDENTIALS, never a user login; Azure: AZURE_STORAGE_KEY; R2: not built', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-plan-'));
    const saved = { g: process.env.GOOGLE_APPLICATION_CREDENTIALS, a: process.env.AZURE_STORAGE_KEY };
    try {
      const sa = JSON.stringify({ type: 'service_account', client_email: 'n@p.iam.gserviceaccount.com', private_key: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n' });
      fs.writeFileSync(path.join(dir, 'sa.json'), sa);
      fs.writeFileSync(path.join(dir, 'user.json'), JSON.stringify({ type: 'authorized_user', refresh_token: 'r' }));
      const gs = task('file_mounts:\n  /x: gs://ggg\n');
      delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
      await assert.rejects(planBuckets(ctxOf(true), gs, 'ssh'), /no GCP service-account key to share: set GOOGLE_APPLICATION_CREDENTIALS/);
      process.env.GOOGLE_APPLICATION_CREDENTIALS = path.join(dir, 'user.json');
      await assert.rejects(planBuckets(ctxOf(true), gs, 'gcp'), /is not a service-account key \(type "authorized_user"\)/);
      process.env.GOOGLE_APPLICATION_CREDENTIALS = path.join(dir, 'sa.json');
      const plan = await planBuckets(ctxOf(true), gs, 'ssh');
      assert.deepEqual([plan[0].access.credentials, plan[0].shared], [{ kind: 'gcsServiceAccount', json: sa }, 'GCP service-account']);
      const az = task('file_mounts:\n  /x: https://acct.blob.core.windows.net/ccc\n');
      delete process.env.AZURE_STORAGE_KEY;
      await assert.rejects(planBuckets(ctxOf(true), az, 'local'), /set AZURE_STORAGE_KEY/);
      process.env.AZURE_STORAGE_KEY = 'azkey==';
      assert.deepEqual((await planBuckets(ctxOf(true), az, 'local'))[0].access.credentials, { kind: 'azureKey', key: 'azkey==' });
      await assert.rejects(planBuckets(ctxOf(true), task('file_mounts:\n  /x: r2://rrr\n'), 'ssh'),
        (e: Error) => e instanceof OpsError && e.kind === 'unavailable' && /sharing credentials is not built for R2 yet/.test(e.message));
    } finally {
      for (const [k, v] of [['GOOGLE_APPLICATION_CREDENTIALS', saved.g], ['AZURE_STORAGE_KEY', saved.a]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
