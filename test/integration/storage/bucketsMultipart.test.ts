// Large files into S3 in parts (moto): the threshold is lowered so a 12 MiB file stands in for
// one over 5 GiB. Checked: the object is exactly the file, it went in parts, a relaunch skips
// it (its MD5 is in its metadata), a change resends it, and a failed upload leaves no parts.
import { strict as assert } from 'node:assert';
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HeadObjectCommand, ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { S3BucketStore } from '../../../src/core/storage/buckets/s3';
import { MIN_PART, partSizeFor } from '../../../src/core/storage/buckets/s3Multipart';
import { StorageError } from '../../../src/core/storage/errors';
import { DUMMY_CREDENTIALS } from '../../support/moto';
import { startBucketsEnv, skipWithoutS3, type BucketsEnv } from './bucketsEnv';
import { startHoldingProxy } from './holdingProxy';

const MULTIPART = { threshold: 1024 * 1024, partSize: MIN_PART };

describe('S3 multipart upload (moto)', function () {
  this.timeout(120_000);
  let env: BucketsEnv;
  let raw: S3Client;
  let dir: string;
  before(async function () {
    skipWithoutS3(this);
    env = await startBucketsEnv();
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    raw = new S3Client({ endpoint: env.moto.url, forcePathStyle: true, region: 'us-east-1', credentials: DUMMY_CREDENTIALS });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mp-'));
  });
  after(async () => {
    raw?.destroy();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await env?.teardown();
  });

  const store = (endpoint = env.moto.url) => new S3BucketStore({ store: 's3', endpoint, multipart: MULTIPART });

  it('part sizes: at least 5 MiB, and never more than 10,000 parts (a 5 TiB file)', () => {
    assert.equal(partSizeFor(12 * 1024 ** 2, 1), MIN_PART);
    const tib5 = 5 * 1024 ** 4;
    assert.ok(Math.ceil(tib5 / partSizeFor(tib5, MIN_PART)) <= 10_000);
  });

  it('a file over the threshold goes in parts, arrives whole, is skipped when unchanged and resent when changed', async () => {
    const name = `sd-mp-${randomUUID().slice(0, 8)}`;
    await env.http.createBucket(name);
    const big = path.join(dir, 'big.bin');
    const data = randomBytes(12 * 1024 * 1024 + 1); // three parts: 5 + 5 + 2 MiB and a byte
    fs.writeFileSync(big, data);
    const small = path.join(dir, 'small.txt');
    fs.writeFileSync(small, 'small\n');
    const files = new Map([[big, 'data/big.bin'], [small, 'small.txt']]);
    const s = store();
    const first = await s.upload(name, files);
    assert.deepEqual([first.uploaded, first.unchanged], [2, 0]);
    assert.ok((await env.http.get(name, 'data/big.bin'))!.equals(data), 'the object is the file, byte for byte');
    const head = await raw.send(new HeadObjectCommand({ Bucket: name, Key: 'data/big.bin' }));
    assert.match(head.ETag ?? '', /-3"?$/, `a 3-part object (ETag ${head.ETag})`);
    assert.match((await raw.send(new HeadObjectCommand({ Bucket: name, Key: 'small.txt' }))).ETag ?? '', /^"?[0-9a-f]{32}"?$/, 'the small file went as one PutObject');

    const again = await s.upload(name, files);
    assert.deepEqual([again.uploaded, again.unchanged], [0, 2], 'the multipart object is recognised by the MD5 in its metadata');

    data[7] ^= 0xff; // same size, other content
    fs.writeFileSync(big, data);
    const changed = await s.upload(name, files);
    assert.deepEqual([changed.uploaded, changed.unchanged], [1, 1]);
    assert.ok((await env.http.get(name, 'data/big.bin'))!.equals(data));
    s.destroy();
  });

  it('a multipart upload that fails part-way is aborted: no parts are left in the bucket', async () => {
    const name = `sd-mpa-${randomUUID().slice(0, 8)}`;
    await env.http.createBucket(name);
    const big = path.join(dir, 'abort.bin');
    fs.writeFileSync(big, randomBytes(11 * 1024 * 1024));
    const proxy = await startHoldingProxy(env.moto.url);
    const s = store(proxy.url);
    try {
      proxy.hold((method, p) => method === 'PUT' && /[?&]partNumber=2(&|$)/.test(p));
      const ac = new AbortController();
      const up = s.upload(name, new Map([[big, 'abort.bin']]), undefined, ac.signal);
      await proxy.held();
      const open = await raw.send(new ListMultipartUploadsCommand({ Bucket: name }));
      assert.equal(open.Uploads?.length, 1, 'the upload is under way');
      ac.abort();
      await assert.rejects(up, (e: Error) => e instanceof StorageError && /UploadPart 2/.test(e.message));
      const left = await raw.send(new ListMultipartUploadsCommand({ Bucket: name }));
      assert.deepEqual(left.Uploads ?? [], [], 'the multipart upload was aborted');
      assert.deepEqual(await env.http.keys(name), [], 'no object was made');
    } finally {
      proxy.release();
      s.destroy();
      await proxy.close();
    }
  });
});
