// The Azure Blob BucketStore (a container per bucket) against a real Azurite 3.35 through
// @azure/storage-blob: metadata tags, listing, changed-only uploads, delete with proof, errors.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { BlobServiceClient } from '@azure/storage-blob';
import { AzureBucketStore } from '../../../src/core/storage/buckets/azure';
import { BUCKET_TAGS } from '../../../src/core/storage/buckets/types';
import { StorageError } from '../../../src/core/storage/errors';
import { AZURITE_ACCOUNT, AZURITE_KEY, azuriteMissing, startAzurite, type Azurite } from '../../support/azurite';
import { skipOrFailWithout } from '../../support/ci';

describe('storage: Azure Blob containers (BucketStore) against Azurite', function () {
  this.timeout(90_000);
  let az: Azurite;
  let dir: string;
  const store = (key = AZURITE_KEY) => new AzureBucketStore({ account: AZURITE_ACCOUNT, endpoint: az.endpoint, credential: { kind: 'sharedKey', key } });
  const tags = () => ({ [BUCKET_TAGS.uid]: randomUUID(), [BUCKET_TAGS.workspace]: 'ws-test' });
  const raw = () => BlobServiceClient.fromConnectionString(az.connectionString);

  before(async function () {
    const why = azuriteMissing();
    if (why) skipOrFailWithout(this, 'the Azure Blob store tests', why);
    az = await startAzurite();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-azblob-'));
  });
  after(async () => {
    await az?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates a container with its tags as metadata; exists and tags read them back', async () => {
    const s = store();
    const t = tags();
    assert.equal(await s.exists('sd-create'), false);
    await s.create('sd-create', t);
    assert.equal(await s.exists('sd-create'), true);
    assert.deepEqual(await s.tags('sd-create'), t);
    // Stored under C#-identifier names, as the service requires.
    const props = await raw().getContainerClient('sd-create').getProperties();
    assert.equal(props.metadata?.skydeck_bucket_uid, t[BUCKET_TAGS.uid]);
    await assert.rejects(s.create('sd-create', t), (e: StorageError) => e.kind === 'bucket-exists');
    await assert.rejects(s.tags('sd-never'), (e: StorageError) => e.kind === 'bucket-missing');
    // The other opt-in form: a connection string (endpoint and key in one).
    const viaString = new AzureBucketStore({ account: AZURITE_ACCOUNT, credential: { kind: 'connectionString', value: az.connectionString } });
    assert.deepEqual(await viaString.tags('sd-create'), t);
  });

  it('lists only containers carrying the Skydeck uid', async () => {
    const s = store();
    const mine = ['sd-list-a', 'sd-list-b'];
    for (const n of mine) await s.create(n, tags());
    await raw().getContainerClient('sd-list-foreign').create({ metadata: { team: 'ml' } });
    const listed = await s.listSkydeck();
    const names = listed.map((b) => b.name);
    for (const n of mine) assert.ok(names.includes(n), n);
    assert.ok(!names.includes('sd-list-foreign'));
    assert.ok(listed.every((b) => b.store === 'azure' && b.tags[BUCKET_TAGS.uid] && b.location.account === AZURITE_ACCOUNT));
  });

  it('uploads a directory, then sends only what changed', async () => {
    const s = store();
    await s.create('sd-upload', tags());
    const contents: Record<string, Buffer> = { 'a.txt': Buffer.from('alpha\n'), 'sub/b.bin': randomBytes(70_000), 'empty': Buffer.alloc(0) };
    const files = new Map<string, string>();
    for (const [k, v] of Object.entries(contents)) {
      const p = path.join(dir, k);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, v);
      files.set(p, k);
    }
    const first = await s.upload('sd-upload', files);
    assert.deepEqual(first, { uploaded: 3, unchanged: 0, bytes: Object.values(contents).reduce((n, b) => n + b.length, 0) });
    const c = raw().getContainerClient('sd-upload');
    for (const [k, v] of Object.entries(contents)) assert.ok((await c.getBlobClient(k).downloadToBuffer()).equals(v), k);
    assert.deepEqual(await s.upload('sd-upload', files), { uploaded: 0, unchanged: 3, bytes: 0 });
    fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha, changed\n');
    const third = await s.upload('sd-upload', files);
    assert.equal(third.uploaded, 1);
    assert.equal(third.unchanged, 2);
    assert.equal((await c.getBlobClient('a.txt').downloadToBuffer()).toString(), 'alpha, changed\n');
  });

  it('deletes the container (blobs and all) and proves it gone', async () => {
    const s = store();
    await s.create('sd-delete', tags());
    await raw().getContainerClient('sd-delete').getBlockBlobClient('x').upload('x', 1);
    const proof = await s.delete('sd-delete');
    assert.equal(proof.name, 'sd-delete');
    assert.match(proof.proof, /Get Container Properties → (404 ContainerNotFound|409 ContainerBeingDeleted)/);
    assert.equal(await s.exists('sd-delete'), false);
  });

  it('deleting a container that does not exist says so', async () => {
    await assert.rejects(store().delete('sd-missing'), (e: StorageError) => e.kind === 'bucket-missing' && /sd-missing/.test(e.message));
  });

  it('a wrong account key is a denied StorageError', async () => {
    const wrong = randomBytes(64).toString('base64');
    await assert.rejects(store(wrong).exists('sd-create'), (e: StorageError) => e instanceof StorageError && e.kind === 'denied' && /403/.test(e.why));
    await assert.rejects(store(wrong).create('sd-denied', tags()), (e: StorageError) => e.kind === 'denied');
    assert.equal(await store().exists('sd-denied'), false);
  });
});
