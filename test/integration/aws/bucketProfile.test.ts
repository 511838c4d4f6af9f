// Issue 16: an AWS node reads the task's S3 buckets with a per-cluster instance profile scoped
// to exactly those buckets, deleted at down. Launched through launchOnProvider (the task's
// buckets travel on the placement) over moto + the fault proxy; bootstrap is a no-op, so no
// mount is attempted and the emulator's instance addresses are never connected to.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import {
  CreateRoleCommand, DeleteRoleCommand, GetInstanceProfileCommand, GetRoleCommand, GetRolePolicyCommand, IAMClient, ListRolePoliciesCommand, ListRolesCommand,
} from '@aws-sdk/client-iam';
import { tagsFor, TAG_UID } from '../../../src/core/clouds/provider';
import { getCluster } from '../../../src/core/state';
import { down, type OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { findLeakedInstances } from '../../../src/core/ops/leaks';
import { ensureBucketProfile } from '../../../src/core/clouds/aws/bucketRole';
import { ensureJobBoundary } from '../../../src/core/clouds/aws/jobBoundary';
import { runCli } from '../../../src/cli/main';
import { EC2_TRUST } from '../../../src/core/clouds/aws/bucketPolicy';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { task } from '../../unit/task/helpers';
import { MOTO_ACCOUNT, REGION, startBed, type AwsBed, bedOpsContext } from './helpers';

const RESOURCES = 'resources:\n  infra: aws/us-east-1\n  instance_type: t3.micro\n';

describe('aws: per-cluster instance profile for the task\'s S3 buckets (issue 16)', function () {
  this.timeout(120_000);
  let bed: AwsBed;
  let ctx: OpsContext;
  let provider: ReturnType<AwsBed['provider']>;
  let iam: IAMClient;
  let ec2: EC2Client;

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
    provider = bed.provider({ iamEndpoint: bed.moto.url, iamBackoffMs: 20, zones: { [REGION]: ['us-east-1a', 'us-east-1b'] } });
    ctx = await bedOpsContext(bed, provider);
    iam = new IAMClient({ region: 'us-east-1', endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
    ec2 = new EC2Client({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
  });
  after(async () => {
    ctx?.store.close();
    iam?.destroy();
    ec2?.destroy();
    await bed?.close();
  });
  afterEach(() => bed?.proxy.clear());

  const launch = (name: string, yaml: string) => launchOnProvider(ctx, name, task(RESOURCES + yaml), { cloud: 'aws', autostop: { minutes: null, down: false } });
  const noSuchEntity = (e: Error) => e.name === 'NoSuchEntityException' || e.name === 'NoSuchEntity';
  const profileOfInstances = async (uid: string) => {
    const r = await ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: `tag:${TAG_UID}`, Values: [uid] }] }));
    return (r.Reservations ?? []).flatMap((x) => x.Instances ?? []).map((i) => i.IamInstanceProfile?.Arn ?? 'none');
  };

  it('creates a role allowed exactly the task\'s buckets, the instance carries its profile, and down deletes both', async () => {
    const row = await launch('buckets', 'file_mounts:\n  /data: s3://data-bkt/sub/dir/\n  /out: {name: skyd-named-out, store: s3, mode: MOUNT}\n  /g: gs://not-aws\n');
    const name = `skydeck-${row.uid}`;
    const role = (await iam.send(new GetRoleCommand({ RoleName: name }))).Role!;
    assert.equal(role.Path, '/skydeck/');
    assert.ok(role.Tags?.some((t) => t.Key === TAG_UID && t.Value === row.uid), 'the role carries the cluster uid tag');
    const trust = JSON.parse(decodeURIComponent(String(role.AssumeRolePolicyDocument)));
    assert.deepEqual(trust, JSON.parse(EC2_TRUST));
    assert.deepEqual((await iam.send(new ListRolePoliciesCommand({ RoleName: name }))).PolicyNames, ['skydeck-buckets']);
    const doc = (await iam.send(new GetRolePolicyCommand({ RoleName: name, PolicyName: 'skydeck-buckets' }))).PolicyDocument!;
    const objects = ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'];
    // Parents first (bucketMountsOf orders by depth): /g, /out, /data. gs:// is not AWS's to grant.
    assert.deepEqual(JSON.parse(decodeURIComponent(doc)), {
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Action: ['s3:GetBucketLocation'], Resource: ['arn:aws:s3:::skyd-named-out', 'arn:aws:s3:::data-bkt'] },
        { Effect: 'Allow', Action: ['s3:ListBucket'], Resource: 'arn:aws:s3:::skyd-named-out' },
        { Effect: 'Allow', Action: ['s3:ListBucket'], Resource: 'arn:aws:s3:::data-bkt', Condition: { StringLike: { 's3:prefix': ['sub/dir', 'sub/dir/*'] } } },
        { Effect: 'Allow', Action: objects, Resource: ['arn:aws:s3:::skyd-named-out/*', 'arn:aws:s3:::data-bkt/sub/dir', 'arn:aws:s3:::data-bkt/sub/dir/*'] },
      ],
    });
    const profile = (await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name }))).InstanceProfile!;
    assert.deepEqual(profile.Roles?.map((r) => r.RoleName), [name]);
    assert.deepEqual(await profileOfInstances(row.uid), [profile.Arn]);

    await down(ctx, 'buckets');
    await provider.settled();
    assert.equal(await ctx.store.read((db) => getCluster(db, 'buckets')), undefined);
    await assert.rejects(iam.send(new GetRoleCommand({ RoleName: name })), noSuchEntity);
    await assert.rejects(iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name })), noSuchEntity);
  });

  it('a task without S3 buckets gets no role and no profile', async () => {
    const row = await launch('plain', 'file_mounts:\n  /g: gs://not-aws\n');
    await assert.rejects(iam.send(new GetRoleCommand({ RoleName: `skydeck-${row.uid}` })), noSuchEntity);
    assert.deepEqual(await profileOfInstances(row.uid), ['none']);
    await down(ctx, 'plain');
  });

  it('RunInstances refused while EC2 does not see the new profile yet is tried again, then succeeds', async () => {
    const message = 'Value (skydeck-x) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name';
    bed.proxy.errors.push({ action: 'RunInstances', code: 'InvalidParameterValue', status: 400, message, times: 2 });
    const row = await launch('late', 'file_mounts:\n  /d: s3://late-bkt\n');
    assert.equal(bed.proxy.count('RunInstances', 'InvalidParameterValue'), 2);
    assert.equal(bed.proxy.count('RunInstances', 'forwarded'), 1);
    assert.equal((await profileOfInstances(row.uid)).length, 1);
    assert.match((await profileOfInstances(row.uid))[0], new RegExp(`instance-profile/skydeck/skydeck-${row.uid}$`));
    await down(ctx, 'late');
    await provider.settled();
    await assert.rejects(iam.send(new GetRoleCommand({ RoleName: `skydeck-${row.uid}` })), noSuchEntity);
  });

  it('a launch that fails everywhere leaves no role or profile behind', async () => {
    bed.proxy.capacityZones.add('us-east-1a');
    bed.proxy.capacityZones.add('us-east-1b');
    await assert.rejects(launch('nocap', 'file_mounts:\n  /d: s3://nocap-bkt\n'), /InsufficientInstanceCapacity/);
    await provider.settled();
    const tried = bed.proxy.count('RunInstances', 'InsufficientInstanceCapacity');
    assert.equal(tried, 2, 'both zones were tried');
    const roles = await listSkydeckRoles();
    assert.deepEqual(roles, [], 'no Skydeck role is left');
  });

  it('a managed-jobs controller launch that fails everywhere leaves no role or profile behind either', async () => {
    bed.proxy.capacityZones.add('us-east-1a');
    bed.proxy.capacityZones.add('us-east-1b');
    const made = bed.proxy.count('RunInstances', 'InsufficientInstanceCapacity');
    await assert.rejects(launchOnProvider(ctx, 'skydeck-jobs-0000aaaa', task(RESOURCES), { cloud: 'aws', autostop: { minutes: 10, down: false }, jobsController: true }),
      /InsufficientInstanceCapacity/);
    await provider.settled();
    const tried = bed.proxy.calls.filter((c) => c.action === 'RunInstances' && c.outcome === 'InsufficientInstanceCapacity').slice(made);
    assert.equal(tried.length, 2, 'both zones were tried');
    assert.ok(tried.every((c) => /^skydeck-[0-9a-f-]{36}$/.test(c.profile ?? '')), `each with the controller's own profile: ${JSON.stringify(tried)}`);
    assert.deepEqual(await listSkydeckRoles(), [], 'no Skydeck role is left');
  });

  it('a role of the cluster\'s name not tagged as its own is refused at launch and never deleted', async () => {
    const uid = '00000000-0000-4000-8000-00000000beef';
    const name = `skydeck-${uid}`;
    await iam.send(new CreateRoleCommand({ RoleName: name, AssumeRolePolicyDocument: EC2_TRUST }));
    const req = { uid, clusterName: 'squat', workspaceId: 'ws', numNodes: 1, region: REGION, tags: { [TAG_UID]: uid },
      placement: { cloud: 'aws', region: REGION, zone: 'us-east-1a', instanceType: 't3.micro', useSpot: false, bucketAccess: [{ store: 's3' as const, bucket: 'b' }] } };
    await assert.rejects(provider.runInstances(req), (e: Error & { kind?: string }) => e.kind === 'config' && /is not this Skydeck cluster's/.test(e.message));
    await provider.terminateInstances({ uid, region: REGION });
    await provider.settled();
    assert.equal((await iam.send(new GetRoleCommand({ RoleName: name }))).Role?.RoleName, name, 'the foreign role survives');
    await iam.send(new DeleteRoleCommand({ RoleName: name }));
  });

  it('skydeck leaks names a bucket role whose cluster no row owns, and not the role of a cluster that has a row', async () => {
    const row = await launch('owned', 'file_mounts:\n  /d: s3://owned-bkt\n');
    const uid = randomUUID();
    await ensureBucketProfile(iam, uid, tagsFor({ clusterName: 'gone', uid, workspaceId: 'ws-x' }), [{ store: 's3', bucket: 'stray-bkt' }], false, () => ensureJobBoundary(iam, MOTO_ACCOUNT));
    const sweep = await findLeakedInstances(ctx);
    assert.deepEqual(sweep.strayIdentities?.map((i) => [i.kind, i.name, i.cluster, i.workspace]), [['IAM role', `skydeck-${uid}`, 'gone', 'ws-x']]);
    let out = '';
    const code = await runCli(['leaks'], { out: (t) => (out += t), outBytes: (b) => (out += b.toString()), err: (t) => (out += t) }, async () => ctx);
    assert.equal(code, 0, out);
    assert.match(out, new RegExp(`Cluster identities no cluster owns \\(1\\)[^]*aws +IAM role +skydeck-${uid} +gone +ws-x`));
    assert.doesNotMatch(out, new RegExp(row.uid));
    await down(ctx, 'owned');
    await provider.terminateInstances({ uid, region: REGION });
    await provider.settled();
    assert.deepEqual(await listSkydeckRoles(), []);
  });

  async function listSkydeckRoles(): Promise<string[]> {
    return ((await iam.send(new ListRolesCommand({ PathPrefix: '/skydeck/' }))).Roles ?? []).map((r) => r.RoleName!);
  }
});
