// The job-role permissions boundaries on moto: the account's shared one (jobBoundary.ts), made by
// this machine before a role it makes with S3 mounts, set back if changed and otherwise left
// alone, kept at down; and a controller's own (controllerBoundary.ts), which every role its VM
// makes or writes carries (the VM's CLI: a provider given SKYDECK_AWS_CONTROLLER_NODE and _UID,
// as AwsProvider.controllerNodeEnv sets them there); a role made before boundaries gets it
// before its policy is written. Moto does not evaluate IAM, so what the controller may do is checked
// on the documents (test/unit/clouds/awsControllerBoundary.test.ts); here, what exists.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  CreatePolicyVersionCommand, CreateRoleCommand, DeletePolicyCommand, GetPolicyCommand, GetPolicyVersionCommand, GetInstanceProfileCommand, GetRoleCommand, IAMClient,
  ListPolicyVersionsCommand, ListRolesCommand, PutRolePolicyCommand,
} from '@aws-sdk/client-iam';
import { tagsFor } from '../../../src/core/clouds/provider';
import { getCluster, putCluster } from '../../../src/core/state';
import { down, type OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { ensureBucketProfile } from '../../../src/core/clouds/aws/bucketRole';
import { EC2_TRUST, IAM_PATH, POLICY_NAME, bucketPolicy } from '../../../src/core/clouds/aws/bucketPolicy';
import { boundaryArn, existingJobBoundary, jobBoundaryPolicy } from '../../../src/core/clouds/aws/jobBoundary';
import { controllerBoundaryArn, ensureControllerBoundary } from '../../../src/core/clouds/aws/controllerBoundary';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { task } from '../../unit/task/helpers';
import { MOTO_ACCOUNT, REGION, startBed, type AwsBed, bedOpsContext } from './helpers';

const RESOURCES = `resources:\n  infra: aws/${REGION}\n  instance_type: t3.micro\n`;
const ARN = boundaryArn(MOTO_ACCOUNT);
/** The controller the VM-side provider below runs on, and its own boundary (made by its launch, here by hand). */
const CTL_UID = 'ctl-vm-0001';
const CTL_ARN = controllerBoundaryArn(MOTO_ACCOUNT, CTL_UID);

describe('aws job-role permissions boundary (moto)', function () {
  this.timeout(180_000);
  let bed: AwsBed;
  let here: OpsContext;
  let onVm: OpsContext;
  let iam: IAMClient;
  /** IAM calls of `recording`, by command name, in order. */
  const calls: string[] = [];
  let recording: IAMClient;

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
    const zones = { [REGION]: ['us-east-1a'] };
    // This machine: an environment without the controller-VM marker, whatever the test runner's is.
    here = await bedOpsContext(bed, bed.provider({ iamBackoffMs: 20, zones, env: {} }));
    onVm = await bedOpsContext(bed, bed.provider({ iamBackoffMs: 20, zones, env: { SKYDECK_AWS_CONTROLLER_NODE: '1', SKYDECK_AWS_CONTROLLER_UID: CTL_UID } }));
    iam = new IAMClient({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
    await ensureControllerBoundary(iam, CTL_ARN, CTL_UID, {}, []);
    recording = new IAMClient({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
    recording.middlewareStack.add((next, context) => async (args) => {
      calls.push(String(context.commandName).replace(/Command$/, ''));
      return next(args);
    }, { step: 'initialize' });
  });
  after(async () => {
    here?.store.close();
    onVm?.store.close();
    iam?.destroy();
    recording?.destroy();
    await bed?.close();
  });

  const versions = async () => (await iam.send(new ListPolicyVersionsCommand({ PolicyArn: ARN }))).Versions ?? [];
  const defaultDoc = async () => {
    const v = (await iam.send(new GetPolicyCommand({ PolicyArn: ARN }))).Policy!.DefaultVersionId!;
    return JSON.parse(decodeURIComponent((await iam.send(new GetPolicyVersionCommand({ PolicyArn: ARN, VersionId: v }))).PolicyVersion!.Document!)) as unknown;
  };
  const pathOf = async (name: string) => (await iam.send(new GetRoleCommand({ RoleName: name }))).Role!.Path;
  const boundaryOf = async (name: string) => (await iam.send(new GetRoleCommand({ RoleName: name }))).Role!.PermissionsBoundary;
  const launchJob = (ctx: OpsContext, name: string, bucket: string) =>
    launchOnProvider(ctx, name, task(`${RESOURCES}file_mounts:\n  /d: s3://${bucket}\n`), { cloud: 'aws', autostop: { minutes: null, down: false } });
  /** A role as a Skydeck before boundaries left it: tagged, bucket policy, no boundary. */
  const oldRole = async (uid: string, bucket: string) => {
    const Tags = Object.entries(tagsFor({ clusterName: 'old', uid, workspaceId: 'ws-old' })).map(([Key, Value]) => ({ Key, Value }));
    await iam.send(new CreateRoleCommand({ RoleName: `skydeck-${uid}`, Path: IAM_PATH, AssumeRolePolicyDocument: EC2_TRUST, Tags }));
    await iam.send(new PutRolePolicyCommand({ RoleName: `skydeck-${uid}`, PolicyName: POLICY_NAME, PolicyDocument: bucketPolicy([{ store: 's3', bucket }]) }));
    return Tags;
  };

  it('a launch with S3 mounts from this machine makes the shared boundary before its role; relaunches leave it alone, set it back if changed; down keeps it', async () => {
    await assert.rejects(iam.send(new GetPolicyCommand({ PolicyArn: ARN })), /NoSuchEntity/);
    const a = await launchJob(here, 'plain-a', 'a-bkt');
    const policy = (await iam.send(new GetPolicyCommand({ PolicyArn: ARN }))).Policy!;
    assert.deepEqual([policy.PolicyName, policy.Path], ['skydeck-job-boundary', '/skydeck/']);
    assert.deepEqual(await defaultDoc(), JSON.parse(jobBoundaryPolicy()));
    assert.equal((await boundaryOf(`skydeck-${a.uid}`))?.PermissionsBoundaryArn, ARN);

    // A second cluster of the account: no new version.
    await launchJob(here, 'plain-b', 'b-bkt');
    assert.deepEqual((await versions()).map((v) => v.VersionId), ['v1'], 'nothing was written again');

    // Someone widens the boundary: the next launch sets it back as the default.
    const wide = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] });
    await iam.send(new CreatePolicyVersionCommand({ PolicyArn: ARN, PolicyDocument: wide, SetAsDefault: true }));
    await launchJob(here, 'plain-c', 'c-bkt');
    assert.deepEqual(await defaultDoc(), JSON.parse(jobBoundaryPolicy()));
    assert.equal((await versions()).length, 3);

    // Down keeps it: it is the account's, shared with every role made here, and grants nothing by itself.
    for (const name of ['plain-a', 'plain-b', 'plain-c']) {
      const r = await down(here, name);
      assert.ok(r.cleaned, r.notes.join('\n'));
    }
    assert.equal((await iam.send(new GetPolicyCommand({ PolicyArn: ARN }))).Policy?.Arn, ARN);
  });

  it('job-cluster roles carry a boundary: made on the controller VM its controller\'s own, made here the shared one; the VM never writes a boundary', async () => {
    const before = (await versions()).length;
    const job = await launchJob(onVm, 'job-on-vm', 'vm-bkt');
    assert.deepEqual(await boundaryOf(`skydeck-${job.uid}`), { PermissionsBoundaryType: 'PermissionsBoundaryPolicy', PermissionsBoundaryArn: CTL_ARN });
    assert.equal(await pathOf(`skydeck-${job.uid}`), '/skydeck/', 'a job role is never on the controllers\' path');
    const plain = await launchJob(here, 'job-here', 'here-bkt');
    assert.equal((await boundaryOf(`skydeck-${plain.uid}`))?.PermissionsBoundaryArn, ARN);
    // Widened on the VM (a task exec'd onto the cluster there): still bounded.
    const vmProvider = onVm.providers!.get('aws')!;
    assert.equal((await vmProvider.grantBuckets!({ uid: job.uid, region: REGION }, [{ store: 's3', bucket: 'more-bkt' }])).changed, true);
    assert.equal((await boundaryOf(`skydeck-${job.uid}`))?.PermissionsBoundaryArn, CTL_ARN);
    assert.equal((await versions()).length, before, 'the VM wrote no policy version');
    assert.deepEqual((await iam.send(new ListPolicyVersionsCommand({ PolicyArn: CTL_ARN }))).Versions?.map((v) => v.VersionId), ['v1'], 'nor of its own boundary');
    for (const [ctx, name] of [[onVm, 'job-on-vm'], [here, 'job-here']] as const) assert.ok((await down(ctx, name)).cleaned);
  });

  it('a role made before boundaries gets its controller\'s before its policy is written (on the VM, at launch and at a widen)', async () => {
    const uid = randomUUID();
    const tags = Object.fromEntries((await oldRole(uid, 'old-bkt')).map((t) => [t.Key, t.Value]));
    calls.length = 0;
    await ensureBucketProfile(recording, uid, tags, [{ store: 's3', bucket: 'old-bkt' }], false, () => existingJobBoundary(recording, CTL_ARN));
    assert.equal((await boundaryOf(`skydeck-${uid}`))?.PermissionsBoundaryArn, CTL_ARN);
    const order = calls.filter((c) => /^Put|^Create/.test(c));
    assert.deepEqual(order.slice(0, 2), ['PutRolePermissionsBoundary', 'PutRolePolicy'], calls.join(' '));
    assert.ok(!calls.some((c) => /Policy(Version)?$/.test(c) && /^(Create|Delete|Set)/.test(c)), `no write to the boundary: ${calls.join(' ')}`);

    const other = randomUUID();
    await oldRole(other, 'old-bkt');
    const vmProvider = onVm.providers!.get('aws')!;
    await vmProvider.grantBuckets!({ uid: other, region: REGION }, [{ store: 's3', bucket: 'new-bkt' }]);
    assert.equal((await boundaryOf(`skydeck-${other}`))?.PermissionsBoundaryArn, CTL_ARN);
    for (const u of [uid, other]) await vmProvider.deleteIdentities!({ uid: u, region: REGION });
  });

  it('on the controller VM, a missing boundary is a clear error and no role is made; a relaunch of the controller makes it', async () => {
    await iam.send(new DeletePolicyCommand({ PolicyArn: CTL_ARN }));
    await assert.rejects(launchJob(onVm, 'job-no-boundary', 'nb-bkt'),
      (e: Error) => /permissions boundary .*skydeck-job-boundary-ctl-vm-0001 that job-cluster roles must carry does not exist/.test(e.message) && /launch the controller again from your machine/.test(e.message));
    const roles = (await iam.send(new ListRolesCommand({ PathPrefix: IAM_PATH }))).Roles ?? [];
    assert.deepEqual(roles.map((r) => r.RoleName), [], 'no role was created');
    // What a relaunch of the controller from this machine does first.
    await ensureControllerBoundary(iam, CTL_ARN, CTL_UID, {}, []);
    const job = await launchJob(onVm, 'job-remade', 'nb-bkt');
    assert.equal((await boundaryOf(`skydeck-${job.uid}`))?.PermissionsBoundaryArn, CTL_ARN);
    assert.ok((await down(onVm, 'job-remade')).cleaned);
  });

  it('a controller VM started by an older Skydeck (no uid in its environment) is refused with the fix, and makes no role', async () => {
    const old = await bedOpsContext(bed, bed.provider({ iamBackoffMs: 20, zones: { [REGION]: ['us-east-1a'] }, env: { SKYDECK_AWS_CONTROLLER_NODE: '1' } }));
    try {
      await assert.rejects(launchJob(old, 'job-old-vm', 'ov-bkt'),
        (e: Error) => /was not told its uid \(SKYDECK_AWS_CONTROLLER_UID is not set\)/.test(e.message) && /older Skydeck: down the controller/.test(e.message));
      assert.deepEqual(((await iam.send(new ListRolesCommand({ PathPrefix: IAM_PATH }))).Roles ?? []).map((r) => r.RoleName), []);
    } finally {
      old.store.close();
    }
  });
});
