// Azure Blob, GCS and R2 bucket mounts through the real launch/down path on a real sshd pool
// host with FUSE, each against its stand-in: Azurite on a free port (rclone 1.60 reaches it with
// use_emulator, where `endpoint` is the whole service URL), the GCS JSON API fake, and
// moto's S3 standing in for R2. Credentials come the user's way, with the opt-in:
// AZURE_STORAGE_KEY, GOOGLE_APPLICATION_CREDENTIALS, ~/.cloudflare (a temp dir here); the tests
// override only where the node connects (OpsContext.storageAccess).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { BlobServiceClient } from '@azure/storage-blob';
import { down, launch } from '../../../src/core/ops';
import { GcsBucketStore } from '../../../src/core/storage/buckets/gcs';
import { BUCKET_TAGS } from '../../../src/core/storage/buckets/types';
import { AZURITE_KEY, azuriteMissing, startAzurite, type Azurite } from '../../support/azurite';
import { skipOrFailWithout } from '../../support/ci';
import { GcsFake } from '../../support/fakes/gcsFake/server';
import { fixedTokenClient } from '../../support/fakes/gcsFake/auth';
import { enableFuseIn } from '../../support/fuseHost';
import { startMoto, type MotoServer } from '../../support/moto';
import { requireStorageTools } from '../storage/env';
import { S3Http } from '../storage/s3Http';
import { writeTask, type TestOps } from './helpers';
import { sshFixture, type SshFixture } from './sshFixture';

const RUN = [
  'run: |',
  '  set -e',
  '  echo "copy=$(cat ~/data/in.txt) mount=$(cat ~/m/in.txt)"',
  '  mkdir -p ~/m/out && echo "written by the job" > ~/m/out/job.txt',
];

describe('ops: Azure Blob, Google and R2 mounts on an ssh pool host (real sshd, FUSE; Azurite, JSON API fake, moto as R2)', function () {
  this.timeout(240_000);
  let fx: SshFixture;
  let ops: TestOps | undefined;
  const saved = { az: process.env.AZURE_STORAGE_KEY, gac: process.env.GOOGLE_APPLICATION_CREDENTIALS };

  before(async function () {
    requireStorageTools(this);
    const why = azuriteMissing();
    if (why) skipOrFailWithout(this, 'the Azure/GCS/R2 launch tests', why);
    fx = await sshFixture(1);
    await enableFuseIn(fx.env.hosts[0], fx.env.dir);
  });
  after(async () => {
    for (const [k, v] of [['AZURE_STORAGE_KEY', saved.az], ['GOOGLE_APPLICATION_CREDENTIALS', saved.gac]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await fx?.env.stop();
  });
  afterEach(async () => {
    await fx.cleanup(ops);
    ops = undefined;
  });

  async function sharing(access: TestOps['storageAccess']): Promise<TestOps> {
    const o = await fx.ops('known');
    o.storageCredentials = 'share';
    o.storageAccess = access;
    return o;
  }

  const rcloneMounts = async (): Promise<string[]> =>
    (await fx.env.hosts[0].exec('cat /proc/self/mountinfo')).stdout.split('\n').filter((l) => l.includes(' fuse.rclone '));

  /** Launches COPY + MOUNT of `url`, checks what the job read, downs, and checks the mounts went. */
  async function launchBoth(o: TestOps, url: string, cluster: string, more: string[] = []): Promise<string> {
    const task = writeTask(o.workspaceRoot, `${cluster}.yaml`, ['resources: {infra: ssh/lab}', 'file_mounts:',
      `  ~/data: {source: ${url}, mode: COPY}`, `  ~/m: {source: ${url}, mode: MOUNT}`, ...RUN, ...more.map((l) => `  ${l}`)].join('\n'));
    let out = '';
    const r = await launch(o, { taskFile: task, cluster, onOutput: (d) => (out += d) });
    assert.equal(r.final?.status, 'SUCCEEDED', `${out}\n${o.progressLines.join('\n')}`);
    assert.match(out, /copy=from-the-bucket mount=from-the-bucket/);
    assert.equal((await rcloneMounts()).length, 1);
    await down(o, cluster, { graceSeconds: 1 });
    assert.deepEqual(await rcloneMounts(), []);
    return out;
  }

  it('Azure Blob through Azurite (use_emulator): COPY and MOUNT; the job\'s MOUNT writes are in the container after it ends', async () => {
    let az: Azurite | undefined;
    try {
      az = await startAzurite();
      const svc = BlobServiceClient.fromConnectionString(az.connectionString);
      const ctr = svc.getContainerClient('ctr-mount');
      await ctr.create();
      await ctr.getBlockBlobClient('in.txt').upload('from-the-bucket\n', 16);
      process.env.AZURE_STORAGE_KEY = AZURITE_KEY;
      ops = await sharing({ azureEmulator: true, endpoint: az.endpoint });
      await launchBoth(ops, 'https://devstoreaccount1.blob.core.windows.net/ctr-mount', 'az');
      assert.equal((await ctr.getBlobClient('out/job.txt').downloadToBuffer()).toString(), 'written by the job\n');
      assert.ok(ops.progressLines.some((l) => l.startsWith('copied your Azure storage-account credentials to ')), ops.progressLines.join('\n'));
    } finally {
      await az?.stop();
    }
  });

  it('GCS through the JSON API fake (endpoint override, a service-account key): COPY and MOUNT; the job\'s writes are in the bucket', async () => {
    const gcs = await new GcsFake().start();
    try {
      const store = new GcsBucketStore({ projectId: 'skydeck-test', apiEndpoint: gcs.endpoint, authClient: fixedTokenClient() });
      await store.create('gcs-mount-1', { [BUCKET_TAGS.uid]: randomUUID() });
      const src = path.join(fx.env.dir, `gcs-in-${randomUUID()}.txt`);
      fs.writeFileSync(src, 'from-the-bucket\n');
      fs.writeFileSync(`${src}.2`, 'to be removed\n');
      await store.upload('gcs-mount-1', new Map([[src, 'in.txt'], [`${src}.2`, 'gone.txt']]));
      const keyFile = path.join(fx.env.dir, `sa-${randomUUID()}.json`);
      fs.writeFileSync(keyFile, gcs.serviceAccountKey('skydeck-test').keyJson);
      process.env.GOOGLE_APPLICATION_CREDENTIALS = keyFile;
      ops = await sharing({ endpoint: `${gcs.endpoint}/storage/v1/` });
      gcs.requests.length = 0;
      // 17 MiB is past the Go client's 16 MiB media chunk (googleapi's default): a resumable upload, where a small file is multipart.
      await launchBoth(ops, 'gs://gcs-mount-1', 'gc', ['head -c 17825792 /dev/zero > ~/m/out/big.bin', 'rm ~/m/gone.txt']);
      const objects = gcs.model.buckets.get('gcs-mount-1')!.objects;
      assert.equal(objects.get('out/job.txt')?.data.toString(), 'written by the job\n');
      assert.equal(objects.get('out/big.bin')?.data.length, 17825792);
      assert.equal(objects.has('gone.txt'), false);
      // What rclone 1.60 asked of the fake: objects get/list, media download, multipart and
      // resumable inserts (chunks POSTed, as Go's client sends them), delete; each route cites the
      // JSON API v1 reference in the fake.
      const asked = gcs.requests.join('\n');
      for (const call of [/^GET \/storage\/v1\/b\/gcs-mount-1\/o\?.*delimiter=%2F/m, /^GET \/download\/storage\/v1\/b\/gcs-mount-1\/o\/in\.txt\?.*alt=media/m,
        /^POST \/upload\/storage\/v1\/b\/gcs-mount-1\/o\?.*name=out%2Fjob\.txt.*uploadType=multipart/m, /^POST \/upload\/storage\/v1\/b\/gcs-mount-1\/o\?.*uploadType=resumable/m,
        /^POST \/upload\/storage\/v1\/b\/gcs-mount-1\/o\?.*upload_id=/m, /^DELETE \/storage\/v1\/b\/gcs-mount-1\/o\/gone\.txt/m]) {
        assert.match(asked, call);
      }
    } finally {
      await gcs.stop();
    }
  });

  it('R2 with ~/.cloudflare files (moto standing in at the endpoint): COPY and MOUNT, writes land, the R2 secret is never shown', async () => {
    let moto: MotoServer | undefined;
    try {
      moto = await startMoto();
      const s3 = new S3Http(moto.url);
      await s3.createBucket('r2-mount-1');
      await s3.put('r2-mount-1', 'in.txt', Buffer.from('from-the-bucket\n'));
      const cf = fs.mkdtempSync(path.join(fx.env.dir, 'cloudflare-'));
      const secret = `r2-${randomBytes(12).toString('hex')}`;
      fs.writeFileSync(path.join(cf, 'r2.credentials'), `[default]\naws_access_key_id = NOTTHISONE\naws_secret_access_key = nope\n\n[r2]\naws_access_key_id = AKIDR2TEST\naws_secret_access_key = ${secret}\n`);
      fs.writeFileSync(path.join(cf, 'accountid'), `${'5e'.repeat(16)}\n`);
      ops = await sharing({ endpoint: moto.url });
      ops.cloudflareDir = cf;
      const out = await launchBoth(ops, 'r2://r2-mount-1', 'r2');
      assert.equal((await s3.get('r2-mount-1', 'out/job.txt'))?.toString(), 'written by the job\n');
      assert.ok(ops.progressLines.some((l) => l.startsWith('copied your R2 credentials to ')), ops.progressLines.join('\n'));
      for (const text of [...ops.progressLines, ...ops.warnings, out]) assert.ok(!text.includes(secret), text);
    } finally {
      await moto?.stop();
    }
  });
});
