// Issue 16, hostile: the per-cluster bucket role on moto (IAM + EC2) against what a user's task
// or a crash can do to it: more buckets than an inline policy holds, prefixes with IAM's
// wildcard characters, a launch or down killed part-way (the state it leaves is made here by
// hand, call for call, as ensureBucketProfile/deleteBucketProfile would have left it).
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  AddRoleToInstanceProfileCommand, CreateInstanceProfileCommand, CreateRoleCommand, DeleteInstanceProfileCommand, GetInstanceProfileCommand, GetRoleCommand,
  GetRolePolicyCommand, IAMClient, PutRolePolicyCommand, RemoveRoleFromInstanceProfileCommand,
} from '@aws-sdk/client-iam';
import { tagsFor } from '../../../src/core/clouds/provider';
import { type OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { EC2_TRUST, IAM_PATH, POLICY_NAME, bucketPolicy, accessOfPolicy } from '../../../src/core/clouds/aws/bucketPolicy';
import { grantBucketsToRole } from '../../../src/core/clouds/aws/bucketGrant';
import { boundaryArn, ensureJobBoundary } from '../../../src/core/clouds/aws/jobBoundary';
import { listBucketRoles } from '../../../src/core/clouds/aws/bucketRoleList';
import { runCli } from '../../../src/cli/main';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { task } from '../../unit/task/helpers';
import { MOTO_ACCOUNT, REGION, startBed, type AwsBed, bedOpsContext } from './helpers';

const RESOURCES = 'resources:\n  infra: aws/us-east-1\n  instance_type: t3.micro\n';
const noSuchEntity = (e: Error) => e.name === 'NoSuchEntityException' || e.name === 'NoSuchEntity';

describe('aws bucket role under attack (issue 16)', function () {
  this.timeout(120_000);
  let bed: AwsBed;
  let ctx: OpsContext;
  let provider: ReturnType<AwsBed['provider']>;
  let iam: IAMClient;

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
    provider = bed.provider({ iamBackoffMs: 20, zones: { [REGION]: ['us-east-1a'] }, cleanupTimeoutMs: 5000 });
    ctx = await bedOpsContext(bed, provider);
    iam = new IAMClient({ region: 'us-east-1', endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
  });
  after(async () => {
    ctx?.store.close();
    iam?.destroy();
    await bed?.close();
  });
  afterEach(() => bed?.proxy.clear());

  const launch = (name: string, yaml: string) => launchOnProvider(ctx, name, task(RESOURCES + yaml), { cloud: 'aws', autostop: { minutes: null, down: false } });
  const roleGone = (name: string) => assert.rejects(iam.send(new GetRoleCommand({ RoleName: name })), noSuchEntity);
  const policyOf = async (name: string) => decodeURIComponent((await iam.send(new GetRolePolicyCommand({ RoleName: name, PolicyName: POLICY_NAME }))).PolicyDocument!);
  const longBucket = (i: number) => `skyd-${String(i).padStart(3, '0')}-${'b'.repeat(54)}`;
  /** What ensureBucketProfile's first call leaves: the tagged role, nothing else (a kill -9 right after it). */
  const roleOnly = async (uid: string, cluster: string) => {
    const Tags = Object.entries(tagsFor({ clusterName: cluster, uid, workspaceId: 'ws-crash' })).map(([Key, Value]) => ({ Key, Value }));
    await iam.send(new CreateRoleCommand({ RoleName: `skydeck-${uid}`, Path: IAM_PATH, AssumeRolePolicyDocument: EC2_TRUST, Tags }));
    return Tags;
  };
  /** As the provider widens a cluster's role from this machine (AwsProvider.grantBuckets). */
  const grant = (uid: string, access: Parameters<typeof grantBucketsToRole>[2]) =>
    grantBucketsToRole(iam, uid, access, false, boundaryArn(MOTO_ACCOUNT), () => ensureJobBoundary(iam, MOTO_ACCOUNT));
  const cli = async (args: string[]) => {
    let out = '';
    const io = { out: (t: string) => (out += t), outBytes: (b: Buffer) => (out += b.toString()), err: (t: string) => (out += t) };
    const code = await runCli(args, io, async () => ctx);
    return { code, out };
  };

  it('more S3 buckets than a role\'s 10,240-character inline policy holds: a clear error before anything is created', async () => {
    const mounts = Array.from({ length: 40 }, (_, i) => `  /d${i}: s3://${longBucket(i)}\n`).join('');
    const before = ['RunInstances', 'CreateSecurityGroup', 'ImportKeyPair'].map((a) => bed.proxy.count(a));
    await assert.rejects(launch('many', `file_mounts:\n${mounts}`),
      /the task's 40 S3 mount\(s\) on 40 bucket\(s\) need an IAM policy of \d+ characters, more than the 10,240 AWS allows a role[^]*mount fewer buckets or prefixes/);
    assert.deepEqual(['RunInstances', 'CreateSecurityGroup', 'ImportKeyPair'].map((a, i) => bed.proxy.count(a) - before[i]), [0, 0, 0], 'nothing was asked of EC2');
    assert.deepEqual(await listBucketRoles(iam), [], 'no role was created');
  });

  it('widening a role past the limit is refused with the same clear error, and the role keeps what it allowed', async () => {
    const row = await launch('widen', 'file_mounts:\n  /d: s3://small-bkt\n');
    const name = `skydeck-${row.uid}`;
    const before = await policyOf(name);
    const many = Array.from({ length: 40 }, (_, i) => ({ store: 's3' as const, bucket: longBucket(i) }));
    await assert.rejects(grant(row.uid, many), /10,?240/);
    assert.equal(await policyOf(name), before);
  });

  it('a prefix with "*" and "$" reaches the role escaped, and reading it back for a widen finds it unchanged', async () => {
    const row = await launch('wild', 'file_mounts:\n  /d: s3://wild-bkt/runs*/${aws:username}\n');
    const name = `skydeck-${row.uid}`;
    const doc = await policyOf(name);
    assert.ok(doc.includes('arn:aws:s3:::wild-bkt/runs${*}/${$}{aws:username}/*'), doc);
    assert.ok(!doc.includes('runs*'), doc);
    assert.deepEqual(accessOfPolicy(doc), [{ store: 's3', bucket: 'wild-bkt', prefix: 'runs*/${aws:username}' }]);
    const again = await grant(row.uid, [{ store: 's3', bucket: 'wild-bkt', prefix: 'runs*/${aws:username}' }]);
    assert.equal(again.changed, false);
  });

  it('kill -9 after CreateRole (no policy, no profile, no row): the sweep lists the role and --delete-identity deletes it with proof', async () => {
    const uid = randomUUID();
    await roleOnly(uid, 'crashed');
    const listed = await cli(['leaks']);
    assert.match(listed.out, new RegExp(`IAM role +skydeck-${uid} +crashed`));
    const del = await cli(['leaks', '--delete-identity', `skydeck-${uid}`, '-y']);
    assert.equal(del.code, 0, del.out);
    assert.match(del.out, /deleted IAM role .*\(proof: GetRole → NoSuchEntity\)/);
    await roleGone(`skydeck-${uid}`);
  });

  it('kill -9 between a down\'s profile delete and its role delete: the re-run down (release) finishes it with proof', async () => {
    const uid = randomUUID();
    const name = `skydeck-${uid}`;
    const Tags = await roleOnly(uid, 'halfdown');
    await iam.send(new PutRolePolicyCommand({ RoleName: name, PolicyName: POLICY_NAME, PolicyDocument: bucketPolicy([{ store: 's3', bucket: 'half-bkt' }]) }));
    await iam.send(new CreateInstanceProfileCommand({ InstanceProfileName: name, Path: IAM_PATH, Tags }));
    await iam.send(new AddRoleToInstanceProfileCommand({ InstanceProfileName: name, RoleName: name }));
    // The first down got as far as the profile (what deleteBucketProfile does first).
    await iam.send(new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: name, RoleName: name }));
    await iam.send(new DeleteInstanceProfileCommand({ InstanceProfileName: name }));
    const r = await provider.releaseIdentities!({ uid, region: REGION }, { timeoutMs: 20_000, progress: () => undefined });
    assert.deepEqual(r.left, []);
    assert.deepEqual(r.gone.map((g) => g.kind), ['IAM role']);
    await roleGone(name);
    await assert.rejects(iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name })), noSuchEntity);
  });

  it('a role under Skydeck\'s path tagged with a uid but not of that uid\'s name (hand-made): not listed, so --delete-identity can neither claim it gone nor delete another', async () => {
    const uid = randomUUID();
    const Tags = Object.entries(tagsFor({ clusterName: 'mimic', uid, workspaceId: 'ws-x' })).map(([Key, Value]) => ({ Key, Value }));
    await iam.send(new CreateRoleCommand({ RoleName: 'skydeck-handmade', Path: IAM_PATH, AssumeRolePolicyDocument: EC2_TRUST, Tags }));
    assert.deepEqual((await listBucketRoles(iam)).filter((r) => r.name === 'skydeck-handmade'), []);
    const del = await cli(['leaks', '--delete-identity', 'skydeck-handmade', '-y']);
    assert.equal(del.code, 1, del.out);
    assert.doesNotMatch(del.out, /already gone/);
    assert.equal((await iam.send(new GetRoleCommand({ RoleName: 'skydeck-handmade' }))).Role?.RoleName, 'skydeck-handmade');
  });

  it('switched credentials: a release or stray delete recorded in another account is refused (unknown), and nothing of this account is deleted', async () => {
    const uid = randomUUID();
    await roleOnly(uid, 'elsewhere');
    const other = '999999999999';
    await assert.rejects(provider.releaseIdentities!({ uid, region: REGION, account: other }, { timeoutMs: 5000, progress: () => undefined }), new RegExp(other));
    await assert.rejects(provider.deleteIdentities!({ uid, region: REGION, account: other }), new RegExp(other));
    assert.equal((await iam.send(new GetRoleCommand({ RoleName: `skydeck-${uid}` }))).Role?.RoleName, `skydeck-${uid}`, 'the role of the current account is untouched');
  });
});
