// A named S3 bucket of a managed job is made and ended by its controller VM with the VM's own
// role, which allows exactly bucketPolicy(...manage) on that bucket. Every S3 call the bucket
// store makes to create, fill, read and delete a bucket (moto) is recorded here and must be
// one the policy allows: a store that starts calling something new fails this test until the
// policy says so too.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { bucketPolicy, MANAGE_ACTIONS } from '../../../src/core/clouds/aws/bucketPolicy';
import { S3BucketStore } from '../../../src/core/storage/buckets/s3';
import { startBucketsEnv, skipWithoutS3, type BucketsEnv } from './bucketsEnv';

/** The IAM actions each S3 API operation is authorized by (the S3 API reference's "Permissions"). */
const ACTION_OF: Record<string, string[]> = {
  HeadBucket: ['s3:ListBucket'], CreateBucket: ['s3:CreateBucket'], DeleteBucket: ['s3:DeleteBucket'],
  PutBucketTagging: ['s3:PutBucketTagging'], GetBucketTagging: ['s3:GetBucketTagging'], GetBucketLocation: ['s3:GetBucketLocation'],
  ListObjectsV2: ['s3:ListBucket'], ListObjectVersions: ['s3:ListBucketVersions'],
  PutObject: ['s3:PutObject'], CreateMultipartUpload: ['s3:PutObject'], UploadPart: ['s3:PutObject'], CompleteMultipartUpload: ['s3:PutObject'],
  AbortMultipartUpload: ['s3:AbortMultipartUpload'], GetObject: ['s3:GetObject'], HeadObject: ['s3:GetObject'],
  // Deleting listed versions by id needs both.
  DeleteObjects: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
  ListBuckets: ['s3:ListAllMyBuckets'],
};

/** The actions the policy allows on `arn` (its statements with no condition; wildcards in resources matched). */
function allowedOn(doc: string, arn: string): Set<string> {
  const out = new Set<string>();
  for (const st of (JSON.parse(doc) as { Statement: { Effect: string; Action: string | string[]; Resource: string | string[]; Condition?: unknown }[] }).Statement) {
    if (st.Effect !== 'Allow' || st.Condition) continue;
    const hit = ([] as string[]).concat(st.Resource).some((r) => new RegExp(`^${r.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(arn));
    if (hit) for (const a of ([] as string[]).concat(st.Action)) out.add(a);
  }
  return out;
}

describe('storage: what making and ending a named S3 bucket calls is what a managing role allows (moto)', function () {
  this.timeout(60_000);
  let env: BucketsEnv;
  let dir: string;

  before(async function () {
    skipWithoutS3(this);
    env = await startBucketsEnv();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-manage-'));
  });
  after(async () => {
    await env?.teardown();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('create, upload, read the tags and location, delete: every call is allowed on that bucket, and only with manage', async () => {
    const store = new S3BucketStore({ store: 's3', endpoint: env.moto.url });
    const calls: string[] = [];
    // The store's own client: every operation it sends, by name.
    const client = (store as unknown as { client: S3Client }).client;
    client.middlewareStack.add((next, context) => async (args) => { calls.push(String(context.commandName).replace(/Command$/, '')); return next(args); }, { step: 'initialize', name: 'recordCalls' });
    const bucket = 'managed-out-bkt';
    fs.writeFileSync(path.join(dir, 'a.txt'), 'hello\n');
    await store.create(bucket, { 'skydeck-uid': 'u1' });
    await store.upload(bucket, new Map([[path.join(dir, 'a.txt'), 'sub/b.txt']]));
    assert.deepEqual(await store.tags(bucket), { 'skydeck-uid': 'u1' });
    await store.regionOf(bucket);
    const proof = await store.delete(bucket);
    assert.equal(proof.name, bucket);
    assert.equal(await store.exists(bucket), false);
    store.destroy();

    const unknown = calls.filter((c) => !ACTION_OF[c]);
    assert.deepEqual(unknown, [], 'every S3 operation the store makes has its IAM action listed here');
    for (const c of ['CreateBucket', 'PutBucketTagging', 'DeleteBucket', 'PutObject']) assert.ok(calls.includes(c), `${c} was called: ${calls.join(' ')}`);
    const needed = new Set(calls.flatMap((c) => ACTION_OF[c]));
    assert.ok(!needed.has('s3:ListAllMyBuckets'), 'making and ending a bucket never lists the account\'s buckets');

    const managing = bucketPolicy([{ store: 's3', bucket, manage: true }]);
    const plain = bucketPolicy([{ store: 's3', bucket }]);
    const allowed = new Set([...allowedOn(managing, `arn:aws:s3:::${bucket}`), ...allowedOn(managing, `arn:aws:s3:::${bucket}/sub/b.txt`)]);
    assert.deepEqual([...needed].filter((a) => !allowed.has(a)), [], `calls made: ${calls.join(' ')}`);
    const plainAllowed = new Set([...allowedOn(plain, `arn:aws:s3:::${bucket}`), ...allowedOn(plain, `arn:aws:s3:::${bucket}/sub/b.txt`)]);
    for (const a of ['s3:CreateBucket', 's3:DeleteBucket']) assert.ok(!plainAllowed.has(a), `${a} only with manage`);
    // Nothing of another bucket.
    assert.deepEqual([...allowedOn(managing, 'arn:aws:s3:::other-bkt')], []);
    assert.deepEqual(MANAGE_ACTIONS.filter((a) => !needed.has(a) && a !== 's3:GetBucketTagging'), [], 'the manage list holds nothing the store does not call');
  });
});
