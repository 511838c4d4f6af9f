// The GCS BucketStore through the real @google-cloud/storage client against the local fake of
// the JSON API (test/support/fakes/gcsFake): labels, listing across pages, changed-only
// uploads (multipart and resumable), delete with proof, and the errors a user sees.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { GcsBucketStore } from '../../../src/core/storage/buckets/gcs';
import { BUCKET_TAGS } from '../../../src/core/storage/buckets/types';
import { StorageError } from '../../../src/core/storage/errors';
import { GcsFake } from '../../support/fakes/gcsFake/server';
import { fixedTokenClient as tokenClient } from '../../support/fakes/gcsFake/auth';

const PROJECT = 'skydeck-test';

describe('storage: GCS buckets (BucketStore) against the JSON API fake', function () {
  this.timeout(60_000);
  let fake: GcsFake;
  let dir: string;
  const store = (authClient: unknown = tokenClient()) => new GcsBucketStore({ projectId: PROJECT, apiEndpoint: fake.endpoint, authClient });
  const tags = () => ({ [BUCKET_TAGS.uid]: randomUUID(), [BUCKET_TAGS.workspace]: 'ws-test' });

  before(async () => {
    fake = await new GcsFake().start();
    fake.pageSize = 2; // every listing must follow nextPageToken
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-gcs-'));
  });
  after(async () => {
    await fake?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates a bucket with its labels; exists and tags read them back', async () => {
    const s = store();
    const t = tags();
    assert.equal(await s.exists('sd-create'), false);
    await s.create('sd-create', t);
    assert.equal(await s.exists('sd-create'), true);
    assert.deepEqual(await s.tags('sd-create'), t);
    assert.deepEqual(fake.model.buckets.get('sd-create')?.labels, t);
    await assert.rejects(s.create('sd-create', t), (e: StorageError) => e.kind === 'bucket-exists');
    await assert.rejects(s.tags('sd-never'), (e: StorageError) => e.kind === 'bucket-missing');
  });

  it('lists only buckets carrying the Skydeck uid label, over several pages', async () => {
    const s = store();
    const mine = ['sd-list-a', 'sd-list-b', 'sd-list-c'];
    for (const n of mine) await s.create(n, tags());
    await s.create('sd-list-foreign', { team: 'ml' });
    const listed = await s.listSkydeck();
    const names = listed.map((b) => b.name).sort();
    for (const n of mine) assert.ok(names.includes(n), n);
    assert.ok(!names.includes('sd-list-foreign'));
    assert.ok(listed.every((b) => b.store === 'gcs' && b.tags[BUCKET_TAGS.uid] && b.location.account === PROJECT));
    assert.ok(fake.requests.filter((r) => r.startsWith('GET /storage/v1/b?') && r.includes('pageToken=')).length >= 2);
  });

  it('uploads a directory, then sends only what changed', async () => {
    const s = store();
    await s.create('sd-upload', tags());
    const files = new Map<string, string>();
    const contents: Record<string, Buffer> = { 'a.txt': Buffer.from('alpha\n'), 'sub/b.bin': randomBytes(70_000), 'empty': Buffer.alloc(0), 'big.bin': randomBytes(9 * 1024 * 1024 + 3) };
    for (const [k, v] of Object.entries(contents)) {
      const p = path.join(dir, k);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, v);
      files.set(p, k);
    }
    const progress: number[] = [];
    const first = await s.upload('sd-upload', files, (p) => progress.push(p.files));
    assert.deepEqual(first, { uploaded: 4, unchanged: 0, bytes: Object.values(contents).reduce((n, b) => n + b.length, 0) });
    assert.equal(progress.at(-1), 4);
    // The big file went resumable, the small ones multipart, as the library sends them.
    assert.ok(fake.requests.some((r) => r.startsWith('POST /upload/storage/v1/b/sd-upload/o?') && r.includes('uploadType=resumable')));
    assert.ok(fake.requests.some((r) => r.startsWith('POST /upload/storage/v1/b/sd-upload/o?') && r.includes('uploadType=multipart')));
    for (const [k, v] of Object.entries(contents)) assert.ok(fake.model.buckets.get('sd-upload')!.objects.get(k)!.data.equals(v), k);

    const again = await s.upload('sd-upload', files);
    assert.deepEqual(again, { uploaded: 0, unchanged: 4, bytes: 0 });

    fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha, changed\n');
    const third = await s.upload('sd-upload', files);
    assert.equal(third.uploaded, 1);
    assert.equal(third.unchanged, 3);
    assert.equal(fake.model.buckets.get('sd-upload')!.objects.get('a.txt')!.data.toString(), 'alpha, changed\n');
  });

  it('deletes every object (paged), then the bucket, and proves it gone', async () => {
    const s = store();
    await s.create('sd-delete', tags());
    const b = fake.model.buckets.get('sd-delete')!;
    for (let i = 0; i < 5; i++) b.objects.set(`k${i}`, { name: `k${i}`, data: Buffer.from(String(i)), contentType: 'text/plain', generation: fake.model.generation(), created: new Date().toISOString() });
    const proof = await s.delete('sd-delete');
    assert.equal(proof.name, 'sd-delete');
    assert.match(proof.proof, /404 notFound/);
    assert.equal(fake.model.buckets.has('sd-delete'), false);
    assert.equal(await s.exists('sd-delete'), false);
  });

  it('deleting a bucket that does not exist says so', async () => {
    await assert.rejects(store().delete('sd-missing'), (e: StorageError) => e.kind === 'bucket-missing' && /gs:\/\/sd-missing/.test(e.message));
  });

  it('a token the service rejects, or one without permission, is a denied StorageError', async () => {
    const bad = tokenClient('not-a-real-token');
    await assert.rejects(store(bad).exists('sd-create'), (e: StorageError) => e instanceof StorageError && e.kind === 'denied' && /401/.test(e.why));
    fake.deniedTokens.add('fake-token');
    try {
      await assert.rejects(store().create('sd-denied', tags()), (e: StorageError) => e.kind === 'denied' && /403/.test(e.why));
    } finally {
      fake.deniedTokens.delete('fake-token');
    }
    assert.equal(fake.model.buckets.has('sd-denied'), false);
  });

  it('the fake refuses a request without a bearer token (401)', async () => {
    const r = await fetch(`${fake.endpoint}/storage/v1/b?project=${PROJECT}`);
    assert.equal(r.status, 401);
    const body = await r.json() as { error: { code: number; errors: { reason: string }[] } };
    assert.equal(body.error.code, 401);
    assert.equal(body.error.errors[0].reason, 'required');
  });
});
