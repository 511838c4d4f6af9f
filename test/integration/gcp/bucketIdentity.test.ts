// GCS buckets read with the VM's own identity on the fakes (IAM v1 service accounts, Cloud
// Storage bucket IAM policies, Compute inserts): one service account per cluster, bound on
// exactly the task's buckets, every node running as it; taken back at down with proof, after a
// failed launch too; listed by the sweep when no row owns it.
import * as assert from 'node:assert/strict';
import { StateStore } from '../../../src/core/state';
import { TAG_UID, type BucketAccess, type Placement, type RunRequest } from '../../../src/core/clouds/provider';
import { downWithProof, findLeaked, provision, type ProvisionEnv } from '../../../src/core/provision';
import { CLOUD_PLATFORM_SCOPE, STORAGE_RW_SCOPE } from '../../../src/core/clouds/gcp/launch';
import { autodownRole, serviceAccountEmail } from '../../../src/core/clouds/gcp/autodownIdentity';
import { BUCKET_ROLE } from '../../../src/core/clouds/gcp/bucketIam';
import { bucketAccountId } from '../../../src/core/clouds/gcp/accountTags';
import { LABEL_HEAD } from '../../../src/core/clouds/gcp/status';
import { bedEnv, noBootstrap, runRequest, startGcpBed, PROJECT, REGION, type GcpBed } from './helpers';

describe('gcp bucket identity: a per-cluster service account bound on the task\'s GCS buckets only', function () {
  this.timeout(60_000);
  let bed: GcpBed;
  let logs: string[];
  let store: StateStore | undefined;
  beforeEach(async () => {
    bed = await startGcpBed();
    logs = [];
    for (const b of ['data-bkt', 'other-bkt', 'legacy-bkt']) bed.fake.bucketIam.addBucket(b, { uniform: b !== 'legacy-bkt' });
  });
  afterEach(async () => {
    store?.close();
    store = undefined;
    await bed?.close();
  });

  const gs = (bucket: string, prefix?: string): BucketAccess => ({ store: 'gcs', bucket, ...(prefix ? { prefix } : {}) });
  const provider = () => bed.provider({ log: (m) => logs.push(m) });
  const withBuckets = (access: BucketAccess[], over: Partial<RunRequest> = {}): RunRequest => {
    const r = runRequest({ numNodes: 2, ...over });
    return { ...r, ...over, placement: { ...r.placement, bucketAccess: access } };
  };
  const emailOf = (uid: string) => serviceAccountEmail(bucketAccountId(uid), PROJECT);
  const member = (uid: string) => `serviceAccount:${emailOf(uid)}`;
  const bound = (bucket: string) => bed.fake.bucketIam.members(bucket, BUCKET_ROLE);
  const instancesOf = (uid: string) => [...bed.fake.model.instances.values()].filter((i) => i.labels[TAG_UID] === uid);
  const placements = (access: BucketAccess[]): Placement[] => [{ cloud: 'gcp', region: REGION, instanceType: 'e2-standard-2', useSpot: false, bucketAccess: access }];
  async function loopEnv(): Promise<ProvisionEnv> {
    const made = await bedEnv(bed, bed.provider({ log: (m) => logs.push(m), zones: { [REGION]: ['us-central1-a', 'us-central1-b'] } }));
    store = made.store;
    return made.env;
  }

  it('a launch with a gs:// mount creates the account, binds it on exactly that bucket, and inserts every node as it', async () => {
    const req = withBuckets([gs('data-bkt')]);
    await provider().runInstances(req);
    const email = emailOf(req.uid);
    assert.match(bucketAccountId(req.uid), /^skydeck-b-[0-9a-f]{20}$/);
    const sa = bed.fake.model.iam.accounts.get(email) as { description: string; displayName: string };
    assert.ok(sa, 'the account exists');
    assert.match(sa.description, new RegExp(`skydeck-cluster-uid=${req.uid}`));
    assert.equal(sa.displayName, `Skydeck cluster ${req.clusterName}`);
    assert.deepEqual(bound('data-bkt'), [member(req.uid)]);
    assert.deepEqual(bound('other-bkt'), [], 'no other bucket');
    assert.ok(!bed.fake.model.iam.bindings.some((b) => b.members.includes(member(req.uid))), 'nothing on the project');
    const nodes = instancesOf(req.uid);
    assert.equal(nodes.length, 2);
    for (const n of nodes) assert.deepEqual(n.serviceAccounts, [{ email, scopes: [STORAGE_RW_SCOPE] }], n.name);
  });

  it('an autodown cluster: the head runs as the same account, with the broad scope and the autodown role on the project', async () => {
    const req = withBuckets([gs('data-bkt')], { autostop: { down: true } });
    await provider().runInstances(req);
    const email = emailOf(req.uid);
    const head = instancesOf(req.uid).find((i) => i.labels[LABEL_HEAD] === 'true')!;
    assert.deepEqual(head.serviceAccounts, [{ email, scopes: [CLOUD_PLATFORM_SCOPE, STORAGE_RW_SCOPE] }]);
    assert.deepEqual(instancesOf(req.uid).find((i) => i !== head)!.serviceAccounts, [{ email, scopes: [STORAGE_RW_SCOPE] }]);
    assert.ok(bed.fake.model.iam.allows(email, 'compute.instances.delete'));
    assert.ok(!bed.fake.model.iam.accounts.has(serviceAccountEmail('skydeck-autodown', PROJECT)), 'no second account');
  });

  it('a prefix is bound by a condition on uniform buckets; a bucket refusing conditions gets a bucket-level binding, said so', async () => {
    const req = withBuckets([gs('data-bkt', 'runs/a'), gs('legacy-bkt', 'x')]);
    await provider().runInstances(req);
    const cond = bed.fake.bucketIam.buckets.get('data-bkt')!.bindings.find((b) => b.role === BUCKET_ROLE)!.condition as { expression: string };
    const obj = 'projects/_/buckets/data-bkt/objects/runs/a';
    const list = 'api.getAttribute("storage.googleapis.com/objectListPrefix", "")';
    assert.equal(cond.expression, `resource.name == "${obj}" || resource.name.startsWith("${obj}/") || ${list} == "runs/a" || ${list}.startsWith("runs/a/")`);
    const legacy = bed.fake.bucketIam.buckets.get('legacy-bkt')!.bindings.filter((b) => b.role === BUCKET_ROLE);
    assert.deepEqual(legacy, [{ role: BUCKET_ROLE, members: [member(req.uid)] }]);
    assert.ok(logs.some((l) => l.includes('bucket legacy-bkt refused a condition')));
  });

  it('a bucket policy changed by someone else between read and write: 412, read again, both changes kept', async () => {
    const b = bed.fake.bucketIam;
    b.beforeSet.push(() => b.touch('data-bkt', 'user:colleague@example.com'));
    const req = withBuckets([gs('data-bkt')]);
    await provider().runInstances(req);
    assert.equal(b.setCalls.length, 2, 'the stale write was refused, the second went through');
    assert.notEqual(b.setCalls[0].body.etag, b.setCalls[1].body.etag);
    assert.deepEqual(bound('data-bkt'), [member(req.uid)]);
    assert.deepEqual(b.members('data-bkt', 'roles/storage.objectViewer'), ['user:colleague@example.com']);
    assert.ok(logs.some((l) => /IAM policy of bucket data-bkt changed while Skydeck updated it; reading it again/.test(l)));
  });

  it('a new account the bucket policy does not see yet: waited for with backoff, then bound', async () => {
    bed.fake.bucketIam.accountMisses = 2;
    const req = withBuckets([gs('data-bkt')]);
    await provider().runInstances(req);
    assert.equal(bed.fake.bucketIam.setCalls.length, 3);
    assert.deepEqual(bound('data-bkt'), [member(req.uid)]);
    assert.equal(logs.filter((l) => l.includes(`service account ${emailOf(req.uid)} is not visible to IAM yet`)).length, 2);
  });

  it('down through the provision loop: bindings removed, the account deleted and proved gone (GET 404), named', async () => {
    const env = await loopEnv();
    const access = [gs('data-bkt'), gs('other-bkt', 'p')];
    const res = await provision(env, { name: 'gsdown', numNodes: 2, placements: placements(access), bootstrap: noBootstrap, autostop: { minutes: 5, down: true } });
    assert.ok(res.ok, res.error);
    const uid = res.row!.uid;
    assert.deepEqual(bound('data-bkt'), [member(uid)]);
    const down = await downWithProof(env, res.row!);
    assert.ok(down.confirmed && down.deleted, down.reason);
    assert.deepEqual(bound('data-bkt'), []);
    assert.deepEqual(bound('other-bkt'), []);
    assert.equal(bed.fake.model.iam.accounts.has(emailOf(uid)), false);
    assert.ok(!bed.fake.model.iam.bindings.some((b) => b.role === autodownRole(PROJECT) && b.members.includes(member(uid))), 'the project binding went too');
    assert.ok(bed.fake.reads.some((r) => r.endsWith(`/serviceAccounts/${emailOf(uid)}`)), 'proved by a GET');
    assert.ok(logs.includes(`GCP: deleted the service account ${emailOf(uid)} (serviceAccounts.get answers 404)`), logs.join('\n'));
  });

  it('a down whose binding removal is refused reports it and keeps the account for the retry', async () => {
    const req = withBuckets([gs('data-bkt')]);
    const p = provider();
    await p.runInstances(req);
    bed.fake.failNext('PUT', /\/storage\/v1\/b\/data-bkt\/iam$/, undefined, 1);
    await assert.rejects(p.terminateInstances({ uid: req.uid, bucketAccess: req.placement.bucketAccess }), /buckets\.setIamPolicy/);
    assert.ok(bed.fake.model.iam.accounts.has(emailOf(req.uid)), 'not deleted while still bound');
    await p.terminateInstances({ uid: req.uid, bucketAccess: req.placement.bucketAccess });
    assert.equal(bed.fake.model.iam.accounts.has(emailOf(req.uid)), false);
    assert.deepEqual(bound('data-bkt'), []);
  });

  it('a launch that fails after creating the account leaves none, in the loop and in a single call', async () => {
    const env = await loopEnv();
    bed.fake.model.exhausted.add('us-central1-a');
    bed.fake.model.exhausted.add('us-central1-b');
    const res = await provision(env, { name: 'gsfail', numNodes: 1, placements: placements([gs('data-bkt')]), bootstrap: noBootstrap });
    assert.equal(res.ok, false);
    assert.deepEqual(res.attempts.map((a) => a.cleanup), ['confirmed', 'confirmed']);
    assert.equal([...bed.fake.model.iam.accounts.keys()].filter((e) => e.startsWith('skydeck-b-')).length, 0);
    assert.deepEqual(bound('data-bkt'), []);

    // A bucket that does not exist: the account was made, the grant fails, the call takes it back.
    const req = withBuckets([gs('data-bkt'), gs('missing-bkt')]);
    await assert.rejects(provider().runInstances(req), /GCS bucket missing-bkt does not exist/);
    assert.equal(bed.fake.model.iam.accounts.has(emailOf(req.uid)), false);
    assert.deepEqual(bound('data-bkt'), []);
  });

  it('a caller who may not create service accounts: an auth error naming the permission and the fix, no VM', async () => {
    bed.fake.model.iam.callerLacks.add('iam.serviceAccounts.create');
    const req = withBuckets([gs('data-bkt')]);
    const e = await provider().runInstances(req).then(() => undefined, (x: { kind?: string; message: string; hint?: string }) => x);
    assert.equal(e?.kind, 'auth');
    assert.match(e.message, /^GCP bucket access: serviceAccounts\.create: your account lacks permission iam\.serviceAccounts\.create on project skydeck-test/);
    assert.match(e.hint ?? '', new RegExp(`^gcloud iam service-accounts create ${bucketAccountId(req.uid)} --project ${PROJECT}`));
    assert.equal(instancesOf(req.uid).length, 0);
    assert.deepEqual(bound('data-bkt'), []);
  });

  it('the leak sweep lists a bucket account no row owns, and not one a row owns', async () => {
    const env = await loopEnv();
    const res = await provision(env, { name: 'owned', numNodes: 1, placements: placements([gs('data-bkt')]), bootstrap: noBootstrap });
    assert.ok(res.ok, res.error);
    const orphan = withBuckets([gs('other-bkt')], { numNodes: 1 });
    await env.provider.runInstances(orphan);
    bed.fake.model.iam.listPageSize = 1; // the listing must follow nextPageToken
    const sweep = await findLeaked([env], 'ws-test');
    assert.deepEqual(sweep.errors, []);
    assert.deepEqual((sweep.strayIdentities ?? []).map((s) => [s.kind, s.name, s.uid, s.cluster, s.workspace]), [
      ['service account', emailOf(orphan.uid), orphan.uid, orphan.clusterName, 'ws-test'],
    ]);
  });
});
