// Issue 16, hostile: what a planted or odd state row, a switched project or an odd prefix can
// make the per-cluster GCS identity do. A down may only take back what Skydeck made for that
// uid, and a grant must never come out wider than the prefix the task wrote.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type BucketAccess, type RunRequest } from '../../../src/core/clouds/provider';
import { serviceAccountEmail } from '../../../src/core/clouds/gcp/autodownIdentity';
import { BUCKET_ROLE } from '../../../src/core/clouds/gcp/bucketIam';
import { bucketAccountId } from '../../../src/core/clouds/gcp/accountTags';
import { runRequest, startGcpBed, PROJECT, type GcpBed } from './helpers';

describe('gcp bucket identity under attack (issue 16)', function () {
  this.timeout(60_000);
  let bed: GcpBed;
  let logs: string[];
  beforeEach(async () => {
    bed = await startGcpBed();
    logs = [];
    bed.fake.bucketIam.addBucket('data-bkt', { uniform: true });
    bed.fake.bucketIam.addBucket('victim-bkt', { uniform: true });
  });
  afterEach(async () => bed?.close());

  const gs = (bucket: string, prefix?: string): BucketAccess => ({ store: 'gcs', bucket, ...(prefix ? { prefix } : {}) });
  const provider = () => bed.provider({ log: (m) => logs.push(m) });
  const withBuckets = (access: BucketAccess[], over: Partial<RunRequest> = {}): RunRequest => {
    const r = runRequest({ ...over });
    return { ...r, ...over, placement: { ...r.placement, bucketAccess: access } };
  };
  const emailOf = (uid: string) => serviceAccountEmail(bucketAccountId(uid), PROJECT);
  const bindings = (bucket: string) => bed.fake.bucketIam.buckets.get(bucket)!.bindings.filter((b) => b.role === BUCKET_ROLE);
  const accounts = () => bed.fake.model.iam.accounts;

  it('a very long prefix is still granted by a condition, not widened to the whole bucket', async () => {
    const prefix = `runs/${'p'.repeat(300)}`;
    const req = withBuckets([gs('data-bkt', prefix)]);
    await provider().runInstances(req);
    const mine = bindings('data-bkt');
    assert.equal(mine.length, 1);
    assert.ok(mine[0].condition, `the binding is conditional: ${JSON.stringify(mine[0])}`);
    assert.ok((mine[0].condition as { expression: string }).expression.includes(prefix));
    assert.ok(!logs.some((l) => l.includes('refused a condition')), logs.join('\n'));
  });

  it('a row whose uid names an account someone else made (same id, no Skydeck description): the down neither unbinds nor deletes it', async () => {
    const uid = randomUUID();
    const id = bucketAccountId(uid);
    bed.fake.model.iam.createAccount(id, { displayName: 'a colleague\'s robot' });
    bed.fake.bucketIam.buckets.get('victim-bkt')!.bindings.push({ role: BUCKET_ROLE, members: [`serviceAccount:${emailOf(uid)}`] });
    await provider().terminateInstances({ uid, region: 'us-central1', bucketAccess: [gs('victim-bkt')] });
    assert.ok(accounts().has(emailOf(uid)), 'the account is left');
    assert.deepEqual(bindings('victim-bkt').flatMap((b) => b.members), [`serviceAccount:${emailOf(uid)}`]);
    assert.ok(logs.some((l) => l.includes('left alone')), logs.join('\n'));
  });

  it('a planted uid sharing the first 20 hex digits of a real cluster\'s uid reaches its account but leaves it (the description names the real uid)', async () => {
    const real = withBuckets([gs('victim-bkt')]);
    await provider().runInstances(real);
    const hex = real.uid.replace(/-/g, '');
    const twin = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${real.uid.endsWith('0') ? '111111111111' : '000000000000'}`;
    assert.notEqual(twin, real.uid);
    assert.equal(emailOf(twin), emailOf(real.uid), 'the same account e-mail');
    await provider().terminateInstances({ uid: twin, region: 'us-central1', bucketAccess: [gs('victim-bkt')] });
    assert.ok(accounts().has(emailOf(real.uid)));
    assert.deepEqual(bindings('victim-bkt').flatMap((b) => b.members), [`serviceAccount:${emailOf(real.uid)}`]);
  });

  it('a down removes only its own account from a bucket: other members of the same role stay bound', async () => {
    const req = withBuckets([gs('data-bkt')]);
    await provider().runInstances(req);
    bed.fake.bucketIam.buckets.get('data-bkt')!.bindings.find((b) => b.role === BUCKET_ROLE)!.members.push('user:colleague@example.com');
    await provider().terminateInstances({ uid: req.uid, region: 'us-central1', bucketAccess: [gs('data-bkt')] });
    assert.ok(!accounts().has(emailOf(req.uid)), 'its own account is deleted');
    assert.deepEqual(bindings('data-bkt').flatMap((b) => b.members), ['user:colleague@example.com']);
  });

  it('switched project: a row recorded in another project is refused, its account there untouched', async () => {
    const req = withBuckets([gs('data-bkt')]);
    await provider().runInstances(req);
    await assert.rejects(provider().terminateInstances({ uid: req.uid, region: 'us-central1', account: 'someone-elses-project', bucketAccess: [gs('data-bkt')] }));
    assert.ok(accounts().has(emailOf(req.uid)), 'the account of this project is not deleted');
    assert.equal(bindings('data-bkt').flatMap((b) => b.members).length, 1);
  });
});
