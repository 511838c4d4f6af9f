// How each bucket mount will authenticate, decided before provisioning: AWS, GCP and Azure nodes
// read their own cloud's store with the VM's identity; elsewhere the user's own credentials go to the node
// only with the opt-in.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { forCluster, planBuckets } from '../../../src/core/ops/bucketPlan';
import type { Provider } from '../../../src/core/clouds/provider';
import type { ClusterRecord } from '../../../src/core/state';
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

  it('on GCP reading S3 (another cloud\'s store): refused before provisioning without the opt-in; the shared credentials with it, parents first', async () => {
    await assert.rejects(planBuckets(ctxOf(false), t, 'gcp'), (e: Error) => e instanceof OpsError && e.kind === 'usage'
      && /^file_mounts \/big: s3:\/\/bkt: a GCP node has no identity .* skydeck\.storage\.shareCredentials/.test(e.message));
    const plan = await planBuckets(ctxOf(true), t, 'gcp');
    assert.deepEqual(plan.map((p) => [p.mount.dst, p.mount.mode, p.access.credentials.kind, p.access.endpoint, p.shared]), [
      ['/big', 'MOUNT', 'keys', 'http://127.0.0.1:1', 'AWS'],
      ['/big/inner', 'COPY', 'keys', 'http://127.0.0.1:1', 'AWS'],
    ]);
  });

  it('on Azure reading Azure Blob: the cluster\'s managed identity, no opt-in needed and no key shared; once the cluster is known, the VM credential names that identity', async () => {
    const az = task('file_mounts:\n  /x: https://acct.blob.core.windows.net/ccc\n  /s: s3://bkt\n');
    for (const share of [false, true]) {
      const plan = await planBuckets(ctxOf(share), task('file_mounts:\n  /x: https://acct.blob.core.windows.net/ccc\n'), 'azure');
      assert.deepEqual(plan.map((p) => [p.mount.dst, p.access.credentials, p.shared]), [['/x', { kind: 'vm' }, undefined]]);
    }
    const plan = await planBuckets(ctxOf(true), az, 'azure');
    const fake = { cloud: 'azure', bucketIdentity: (ref: { uid: string; account?: string }) => `/subscriptions/${ref.account}/mi-of-${ref.uid}` } as unknown as Provider;
    const ctx = { ...ctxOf(true), providers: { clouds: ['azure'], get: (c: string) => (c === 'azure' ? fake : undefined) } } as OpsContext;
    const row = { uid: 'u-1', provider: 'azure', account: 'sub-1', region: 'eastus', zone: null } as unknown as ClusterRecord;
    assert.deepEqual(forCluster(ctx, plan, row).map((p) => [p.mount.dst, p.access.credentials.kind, (p.access.credentials as { azureMsiResourceId?: string }).azureMsiResourceId]), [
      ['/s', 'keys', undefined], ['/x', 'vm', '/subscriptions/sub-1/mi-of-u-1'],
    ]);
    assert.equal(forCluster(ctxOf(true), plan, row), plan, 'no provider: the plan as it was');
  });

  it('on AWS reading S3: the instance profile (VM identity), no opt-in needed, and no keys shared even with the opt-in', async () => {
    for (const share of [false, true]) {
      const plan = await planBuckets(ctxOf(share), t, 'aws');
      assert.deepEqual(plan.map((p) => [p.mount.dst, p.access.credentials.kind, p.shared]), [['/big', 'vm', undefined], ['/big/inner', 'vm', undefined]]);
    }
  });

  it('on GCP reading GCS: the cluster\'s service account (VM identity), no opt-in needed, and no key shared even with the opt-in', async () => {
    const gs = task('file_mounts:\n  /g: {source: gs://ggg/p, mode: COPY}\n  /h: gs://hhh\n');
    for (const share of [false, true]) {
      const plan = await planBuckets(ctxOf(share), gs, 'gcp');
      assert.deepEqual(plan.map((p) => [p.mount.dst, p.access.credentials.kind, p.shared]), [['/g', 'vm', undefined], ['/h', 'vm', undefined]]);
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

  it('GCS with the opt-in: a service-account key from GOOGLE_APPLICATION_CREDENTIALS, never a user login; Azure: AZURE_STORAGE_KEY', async () => {
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
      await assert.rejects(planBuckets(ctxOf(true), gs, 'aws'), /is not a service-account key \(type "authorized_user"\)/);
      process.env.GOOGLE_APPLICATION_CREDENTIALS = path.join(dir, 'sa.json');
      const plan = await planBuckets(ctxOf(true), gs, 'ssh');
      assert.deepEqual([plan[0].access.credentials, plan[0].shared], [{ kind: 'gcsServiceAccount', json: sa }, 'GCP service-account']);
      const az = task('file_mounts:\n  /x: https://acct.blob.core.windows.net/ccc\n');
      delete process.env.AZURE_STORAGE_KEY;
      await assert.rejects(planBuckets(ctxOf(true), az, 'local'), /set AZURE_STORAGE_KEY/);
      process.env.AZURE_STORAGE_KEY = 'azkey==';
      assert.deepEqual((await planBuckets(ctxOf(true), az, 'local'))[0].access.credentials, { kind: 'azureKey', key: 'azkey==' });
    } finally {
      for (const [k, v] of [['GOOGLE_APPLICATION_CREDENTIALS', saved.g], ['AZURE_STORAGE_KEY', saved.a]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('R2 with the opt-in: the [r2] profile of ~/.cloudflare/r2.credentials and the account id beside it (SkyPilot\'s files); each missing file named with how to make it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-r2plan-'));
    const ctx = (extra: Partial<OpsContext> = {}): OpsContext => ({ storageCredentials: 'share', cloudflareDir: dir, ...extra }) as OpsContext;
    const r2 = task('file_mounts:\n  /x: r2://rrr/p\n');
    try {
      await assert.rejects(planBuckets(ctx(), r2, 'ssh'), (e: Error) => e instanceof OpsError
        && e.message === `file_mounts /x: r2://rrr/p: ${dir}/r2.credentials does not exist. To give R2 access, create an R2 API token (Cloudflare dashboard, R2, Manage API tokens) and run: AWS_SHARED_CREDENTIALS_FILE=${dir}/r2.credentials aws configure --profile r2.`);
      fs.writeFileSync(path.join(dir, 'r2.credentials'), '[default]\naws_access_key_id = AKIDAWS\naws_secret_access_key = aws-secret\n');
      await assert.rejects(planBuckets(ctx(), r2, 'ssh'), new RegExp(`${dir}/r2.credentials has no \\[r2\\] profile`));
      fs.appendFileSync(path.join(dir, 'r2.credentials'), '\n[r2]\naws_access_key_id = AKIDR2\naws_secret_access_key = r2-secret\n');
      await assert.rejects(planBuckets(ctx(), r2, 'local'), (e: Error) => e.message.includes(`${dir}/accountid does not exist`) && e.message.includes(`echo <ACCOUNT_ID> > ${dir}/accountid`));
      fs.writeFileSync(path.join(dir, 'accountid'), 'not-an-id\n');
      await assert.rejects(planBuckets(ctx(), r2, 'ssh'), /does not hold a Cloudflare account id/);
      const id = 'ab'.repeat(16);
      fs.writeFileSync(path.join(dir, 'accountid'), `${id}\n`);
      const plan = await planBuckets(ctx(), r2, 'ssh');
      assert.deepEqual([plan[0].access, plan[0].shared], [{ credentials: { kind: 'keys', accessKeyId: 'AKIDR2', secretAccessKey: 'r2-secret' }, r2AccountId: id }, 'R2']);
      // A test endpoint (moto standing in for R2) overrides the account's endpoint, never the keys.
      const viaMoto = await planBuckets(ctx({ storageAccess: { endpoint: 'http://127.0.0.1:9' } }), r2, 'ssh');
      assert.equal(viaMoto[0].access.endpoint, 'http://127.0.0.1:9');
      await assert.rejects(planBuckets(ctx({ storageCredentials: 'never' }), r2, 'ssh'), /has no identity of its own to read R2 with/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
