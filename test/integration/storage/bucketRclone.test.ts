// rclone (the node-side tool, 1.60) reads the containers and buckets the BucketStores create:
// COPY (src/core/storage/copy.ts) from Azurite with a container SAS, and from the GCS fake with
// a service-account key (rclone signs a JWT, gets a token at the key's token_uri, lists pages
// and downloads each object's mediaLink), onto this machine through the local transport.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { ContainerSASPermissions, StorageSharedKeyCredential, generateBlobSASQueryParameters } from '@azure/storage-blob';
import { copyFromBucket, type NodeMount, type StorageContext, type StoreAccess } from '../../../src/core/storage';
import { AzureBucketStore } from '../../../src/core/storage/buckets/azure';
import { GcsBucketStore } from '../../../src/core/storage/buckets/gcs';
import { BUCKET_TAGS } from '../../../src/core/storage/buckets/types';
import { LocalTransport } from '../../../src/core/transport/localTransport';
import { AZURITE_ACCOUNT, AZURITE_KEY, azuriteMissing, startAzurite, type Azurite } from '../../support/azurite';
import { GcsFake } from '../../support/fakes/gcsFake/server';
import { skipOrFailWithout } from '../../support/ci';
import { fixedTokenClient as tokenClient } from '../../support/fakes/gcsFake/auth';

describe('storage: rclone copies from Azure (Azurite) and GCS (fake) buckets the stores filled', function () {
  this.timeout(120_000);
  let tmp: string;
  let az: Azurite | undefined;
  let gcs: GcsFake | undefined;
  const files: Record<string, Buffer> = { 'a.txt': Buffer.from('alpha\n'), 'deep/er/b.bin': randomBytes(300_000), 'c d.txt': Buffer.from('spaced\n') };

  before(async function () {
    if (spawnSync('rclone', ['version']).status !== 0) skipOrFailWithout(this, 'the rclone bucket tests', 'rclone is not installed (apt-get install rclone)');
    const why = azuriteMissing();
    if (why) skipOrFailWithout(this, 'the rclone bucket tests', why);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-rclone-'));
    for (const [k, v] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(tmp, 'src', k)), { recursive: true });
      fs.writeFileSync(path.join(tmp, 'src', k), v);
    }
  });
  after(async () => {
    await az?.stop();
    await gcs?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const upload = () => new Map<string, string>(Object.keys(files).map((k) => [path.join(tmp, 'src', k), k]));
  const context = (access: StoreAccess): StorageContext => ({
    transport: new LocalTransport({ env: { HOME: tmp, PATH: process.env.PATH ?? '/usr/bin:/bin' } }), stateBase: path.join(tmp, 'state'), access,
  });
  const assertTree = (dir: string) => {
    for (const [k, v] of Object.entries(files)) assert.ok(fs.readFileSync(path.join(dir, k)).equals(v), k);
  };

  it('Azure: a container made and filled by AzureBucketStore, copied by rclone with a container SAS', async () => {
    az = await startAzurite();
    const store = new AzureBucketStore({ account: AZURITE_ACCOUNT, endpoint: az.endpoint, credential: { kind: 'sharedKey', key: AZURITE_KEY } });
    await store.create('rc-azure', { [BUCKET_TAGS.uid]: randomUUID() });
    await store.upload('rc-azure', upload());
    const sas = generateBlobSASQueryParameters({ containerName: 'rc-azure', permissions: ContainerSASPermissions.parse('rl'), expiresOn: new Date(Date.now() + 3600_000) },
      new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY)).toString();
    const dst = path.join(tmp, 'az-dst');
    const m: NodeMount = { dst, mode: 'COPY', target: { store: 'azure', bucket: 'rc-azure', prefix: '', account: AZURITE_ACCOUNT } };
    await copyFromBucket(context({ credentials: { kind: 'azureSas', containerUrl: `${az.endpoint}/rc-azure?${sas}` } }), m);
    assertTree(dst);
  });

  it('GCS: a bucket made and filled by GcsBucketStore, copied by rclone with a service-account key', async () => {
    gcs = await new GcsFake().start();
    gcs.pageSize = 2; // rclone must follow nextPageToken too
    const store = new GcsBucketStore({ projectId: 'skydeck-test', apiEndpoint: gcs.endpoint, authClient: tokenClient() });
    await store.create('rc-gcs', { [BUCKET_TAGS.uid]: randomUUID() });
    await store.upload('rc-gcs', upload());
    const key = gcs.serviceAccountKey('skydeck-test');
    const dst = path.join(tmp, 'gcs-dst');
    const m: NodeMount = { dst, mode: 'COPY', target: { store: 'gcs', bucket: 'rc-gcs', prefix: '' } };
    await copyFromBucket(context({ credentials: { kind: 'gcsServiceAccount', json: key.keyJson }, endpoint: `${gcs.endpoint}/storage/v1/` }), m);
    assertTree(dst);
    assert.ok(gcs.requests.includes('POST /token'), 'rclone signed in with the key');
    assert.ok(gcs.requests.some((r) => r.startsWith('GET /storage/v1/b/rc-gcs/o?') && r.includes('pageToken=')));
  });

  it('Azure: a SAS the account did not sign fails the copy, and no part of its signature is in the message', async () => {
    assert.ok(az, 'the Azure test above started Azurite');
    const sas = generateBlobSASQueryParameters({ containerName: 'rc-azure', permissions: ContainerSASPermissions.parse('rl'), expiresOn: new Date(Date.now() + 3600_000) },
      new StorageSharedKeyCredential(AZURITE_ACCOUNT, Buffer.from('not the account key').toString('base64'))).toString();
    const sig = new URLSearchParams(sas).get('sig')!;
    const m: NodeMount = { dst: path.join(tmp, 'az-denied'), mode: 'COPY', target: { store: 'azure', bucket: 'rc-azure', prefix: '', account: AZURITE_ACCOUNT } };
    const lines: string[] = [];
    const err = await copyFromBucket({ ...context({ credentials: { kind: 'azureSas', containerUrl: `${az!.endpoint}/rc-azure?${sas}` } }), log: (l) => lines.push(l) }, m)
      .then(() => undefined, (e: Error) => e);
    assert.ok(err, 'the copy failed');
    for (const text of [err.message, ...lines]) {
      for (const part of [sig, encodeURIComponent(sig), sig.slice(0, 12)]) assert.ok(!text.includes(part), `${part} in: ${text}`);
    }
  });

  it('GCS: a key the fake never issued gets no token, and the copy fails as denied', async () => {
    const other = new GcsFake();
    const forged = other.serviceAccountKey('skydeck-test').keyJson.replace(/"token_uri":"[^"]*"/, `"token_uri":"${gcs!.endpoint}/token"`);
    const m: NodeMount = { dst: path.join(tmp, 'gcs-denied'), mode: 'COPY', target: { store: 'gcs', bucket: 'rc-gcs', prefix: '' } };
    await assert.rejects(copyFromBucket(context({ credentials: { kind: 'gcsServiceAccount', json: forged }, endpoint: `${gcs!.endpoint}/storage/v1/` }), m),
      (e: Error & { kind?: string }) => e.name === 'StorageError' && e.kind === 'denied' && /invalid_grant/.test(e.message) && !e.message.includes('PRIVATE KEY'));
  });
});
