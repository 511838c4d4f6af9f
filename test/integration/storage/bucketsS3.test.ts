// The S3/R2 BucketStore against moto's S3: create with tags, list Skydeck's, upload only what
// changed, delete with proof; and the errors a user sees.
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PutBucketVersioningCommand, S3Client } from '@aws-sdk/client-s3';
import { BUCKET_TAGS } from '../../../src/core/storage/buckets';
import { StorageError } from '../../../src/core/storage/errors';
import { startBucketsEnv, skipWithoutS3, type BucketsEnv } from './bucketsEnv';

function tree(files: Record<string, string>): { dir: string; map: Map<string, string> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bkt-'));
  const map = new Map<string, string>();
  for (const [k, v] of Object.entries(files)) {
    const p = path.join(dir, k);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, v);
    map.set(p, k);
  }
  return { dir, map };
}

describe('S3 BucketStore (moto)', function () {
  let env: BucketsEnv;
  before(async function () {
    skipWithoutS3(this);
    env = await startBucketsEnv();
  });
  after(async () => env?.teardown());

  for (const kind of ['s3', 'r2'] as const) {
    it(`${kind}: creates a tagged bucket, lists it as Skydeck's, uploads only changed files, deletes it with proof`, async () => {
      const store = kind === 's3' ? env.s3() : env.r2();
      const name = `sd-${kind}-${randomUUID().slice(0, 8)}`;
      const uid = randomUUID();
      await env.http.createBucket(`plain-${name}`); // not Skydeck's: never listed
      assert.equal(await store.exists(name), false);
      await store.create(name, { [BUCKET_TAGS.uid]: uid, [BUCKET_TAGS.workspace]: 'ws000001' });
      assert.equal(await store.exists(name), true);
      assert.equal((await store.tags(name))[BUCKET_TAGS.uid], uid);
      assert.deepEqual(await store.tags(`plain-${name}`), {});
      const listed = await store.listSkydeck();
      assert.deepEqual(listed.map((b) => b.name), [name]);
      assert.equal(listed[0].tags[BUCKET_TAGS.workspace], 'ws000001');

      const { map, dir } = tree({ 'a.txt': 'alpha', 'sub/b.bin': 'b'.repeat(10_000), 'sub/deeper/c': '' });
      const seen: number[] = [];
      const first = await store.upload(name, map, (p) => seen.push(p.files));
      assert.deepEqual(first, { uploaded: 3, unchanged: 0, bytes: 10_005 });
      assert.equal(seen.at(-1), 3);
      assert.equal((await env.http.get(name, 'sub/b.bin'))?.toString(), 'b'.repeat(10_000));
      const again = await store.upload(name, map);
      assert.deepEqual(again, { uploaded: 0, unchanged: 3, bytes: 0 });
      fs.writeFileSync(path.join(dir, 'a.txt'), 'ALPHA'); // same size, other content
      assert.deepEqual(await store.upload(name, map), { uploaded: 1, unchanged: 2, bytes: 5 });
      assert.equal((await env.http.get(name, 'a.txt'))?.toString(), 'ALPHA');

      const proof = await store.delete(name);
      assert.equal(proof.name, name);
      assert.match(proof.proof, /HeadBucket → 404/);
      assert.equal(await store.exists(name), false);
      assert.equal(await store.exists(`plain-${name}`), true, 'another bucket is untouched');
      assert.deepEqual(await store.listSkydeck(), []);
    });
  }

  it('refuses to create a bucket that exists (and leaves it untagged)', async () => {
    const store = env.s3();
    const name = `taken-${randomUUID().slice(0, 8)}`;
    await env.http.createBucket(name);
    await assert.rejects(store.create(name, { [BUCKET_TAGS.uid]: randomUUID() }), (e: unknown) =>
      e instanceof StorageError && e.kind === 'bucket-exists' && e.message.includes(`s3://${name}`));
    assert.deepEqual(await store.tags(name), {});
  });

  it('deletes a bucket holding more objects than one list page (1000)', async function () {
    this.timeout(180_000); // 1001 PUTs and a paged delete against moto: minutes on a loaded 2-core machine
    const store = env.s3();
    const name = `many-${randomUUID().slice(0, 8)}`;
    await store.create(name, { [BUCKET_TAGS.uid]: randomUUID() });
    const files: Record<string, string> = {};
    for (let i = 0; i < 1001; i++) files[`f/${i}`] = `${i}`;
    const { map } = tree(files);
    assert.equal((await store.upload(name, map)).uploaded, 1001);
    assert.match((await store.delete(name)).proof, /404/);
    assert.equal(await store.exists(name), false);
  });

  it('deletes a versioned bucket: every old version and delete marker goes first', async () => {
    const store = env.s3();
    const name = `ver-${randomUUID().slice(0, 8)}`;
    await store.create(name, { [BUCKET_TAGS.uid]: randomUUID() });
    const raw = new S3Client({ endpoint: env.moto.url, forcePathStyle: true });
    await raw.send(new PutBucketVersioningCommand({ Bucket: name, VersioningConfiguration: { Status: 'Enabled' } }));
    const { map, dir } = tree({ 'k.txt': 'one' });
    await store.upload(name, map);
    fs.writeFileSync(path.join(dir, 'k.txt'), 'two!');
    await store.upload(name, map); // a second version of k.txt
    raw.destroy();
    assert.match((await store.delete(name)).proof, /HeadBucket → 404/);
    assert.equal(await store.exists(name), false);
  });

  it('names the bucket and the fix when it is missing', async () => {
    const store = env.s3();
    await assert.rejects(store.tags('no-such-bucket-skydeck'), (e: unknown) =>
      e instanceof StorageError && e.kind === 'bucket-missing' && /s3:\/\/no-such-bucket-skydeck/.test(e.message));
  });
});
