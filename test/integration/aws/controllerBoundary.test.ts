// A managed-jobs controller's own job-role boundary on moto (controllerBoundary.ts): made by its
// launch from this machine before its role, naming no bucket; widened with the controller's role
// by each submit's bucket grant (controllerBuckets.ts), never by the VM; deleted by its down with
// proof; listed by the sweep when no row owns it. Moto does not evaluate IAM, so what a job role
// under it may reach is checked by evaluating the documents read back from moto (iamEval.ts).
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  CreatePolicyCommand, DeletePolicyCommand, GetPolicyCommand, GetPolicyVersionCommand, GetRolePolicyCommand, IAMClient, ListPolicyTagsCommand, ListPolicyVersionsCommand, ListRolePoliciesCommand,
} from '@aws-sdk/client-iam';
import { TAG_UID, tagsFor } from '../../../src/core/clouds/provider';
import { getCluster } from '../../../src/core/state';
import { down, type OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { findLeakedInstances } from '../../../src/core/ops/leaks';
import { deleteStrayIdentity } from '../../../src/core/ops/identityRelease';
import { grantControllerBuckets } from '../../../src/core/managed/remote/controllerBuckets';
import { controllerBoundaryArn, controllerBoundaryPolicy, ensureControllerBoundary } from '../../../src/core/clouds/aws/controllerBoundary';
import { controllerPolicy } from '../../../src/core/clouds/aws/controllerPolicy';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { task } from '../../unit/task/helpers';
import { evaluate, type IamRequest } from '../../unit/clouds/iamEval';
import { MOTO_ACCOUNT, REGION, startBed, type AwsBed, bedOpsContext } from './helpers';

const RESOURCES = `resources:\n  infra: aws/${REGION}\n  instance_type: t3.micro\n`;
const KIND = 'IAM permissions boundary';
const noSuch = /NoSuchEntity/;
const jobText = 'name: j\nresources: {cloud: aws}\nfile_mounts:\n  /in: s3://a-data/runs\n  /out: {name: a-out, store: s3, mode: MOUNT}\nrun: ls\n';
/** What any job role controller A writes could be given: everything. */
const ADMIN = JSON.stringify({ Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] });

describe('aws managed-jobs controller: a job-role boundary of its own (moto)', function () {
  this.timeout(180_000);
  let bed: AwsBed;
  let ctx: OpsContext;
  let iam: IAMClient;

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
    ctx = await bedOpsContext(bed, bed.provider({ iamBackoffMs: 20, zones: { [REGION]: ['us-east-1a'] }, env: {} }));
    iam = new IAMClient({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
  });
  after(async () => {
    ctx?.store.close();
    iam?.destroy();
    await bed?.close();
  });

  const launchController = (name: string) =>
    launchOnProvider(ctx, name, task(RESOURCES), { cloud: 'aws', autostop: { minutes: null, down: false }, jobsController: true });
  const docOf = async (arn: string) => {
    const v = (await iam.send(new GetPolicyCommand({ PolicyArn: arn }))).Policy!.DefaultVersionId!;
    return decodeURIComponent((await iam.send(new GetPolicyVersionCommand({ PolicyArn: arn, VersionId: v }))).PolicyVersion!.Document!);
  };
  const row = async (name: string) => (await ctx.store.read((db) => getCluster(db, name)))!;
  /** A job role written with any policy under `boundaryDoc`: both must allow. */
  const jobRole = (boundaryDoc: string, req: IamRequest) => evaluate([ADMIN], req) === 'allow' && evaluate([boundaryDoc], req) === 'allow';

  it('its launch makes its boundary, tagged as its, allowing nothing yet; its policy names that boundary, not another controller\'s', async () => {
    const a = await launchController('ctl-a');
    const b = await launchController('ctl-b');
    const arnA = controllerBoundaryArn(MOTO_ACCOUNT, a.uid);
    const policy = (await iam.send(new GetPolicyCommand({ PolicyArn: arnA }))).Policy!;
    assert.deepEqual([policy.PolicyName, policy.Path], [`skydeck-job-boundary-${a.uid}`, '/skydeck/']);
    const tags = (await iam.send(new ListPolicyTagsCommand({ PolicyArn: arnA }))).Tags ?? [];
    assert.ok(tags.some((t) => t.Key === TAG_UID && t.Value === a.uid), JSON.stringify(tags));
    assert.deepEqual(JSON.parse(await docOf(arnA)), JSON.parse(controllerBoundaryPolicy([])));
    assert.equal(jobRole(await docOf(arnA), { action: 's3:GetObject', resource: 'arn:aws:s3:::a-data/runs/k' }), false, 'no bucket granted yet');
    const own = decodeURIComponent((await iam.send(new GetRolePolicyCommand({ RoleName: `skydeck-${a.uid}`, PolicyName: 'skydeck-jobs-controller' }))).PolicyDocument!);
    assert.deepEqual(JSON.parse(own), JSON.parse(controllerPolicy(a.uid, arnA)));
    // A's policy, as IAM holds it: a role with B's boundary is refused, one with A's allowed.
    const create = (boundary: string) => evaluate([own], { action: 'iam:CreateRole', resource: `arn:aws:iam::${MOTO_ACCOUNT}:role/skydeck/skydeck-j`, context: { 'iam:PermissionsBoundary': boundary } });
    assert.equal(create(controllerBoundaryArn(MOTO_ACCOUNT, b.uid)), 'explicit-deny');
    assert.equal(create(arnA), 'allow');
    assert.equal(evaluate([own], { action: 'iam:CreatePolicyVersion', resource: arnA }), 'explicit-deny', 'the VM cannot widen its own boundary');
  });

  it('a submit\'s buckets widen its boundary with its role, from here: a job role under it reaches those buckets and no other; B\'s stays empty', async () => {
    const a = await row('ctl-a');
    const arnA = controllerBoundaryArn(MOTO_ACCOUNT, a.uid);
    await grantControllerBuckets(ctx, a, [jobText], {});
    const doc = await docOf(arnA);
    assert.deepEqual(JSON.parse(doc), JSON.parse(controllerBoundaryPolicy([{ store: 's3', bucket: 'a-data', prefix: 'runs' }, { store: 's3', bucket: 'a-out' }])));
    assert.equal(jobRole(doc, { action: 's3:GetObject', resource: 'arn:aws:s3:::a-data/runs/k' }), true);
    assert.equal(jobRole(doc, { action: 's3:PutObject', resource: 'arn:aws:s3:::a-out/k' }), true);
    for (const resource of ['arn:aws:s3:::other-bkt/k', 'arn:aws:s3:::a-data/elsewhere/k']) {
      assert.equal(jobRole(doc, { action: 's3:GetObject', resource }), false, resource);
    }
    assert.equal(jobRole(doc, { action: 's3:DeleteBucket', resource: 'arn:aws:s3:::a-out' }), false, 'making and ending a bucket is the controller\'s own, not its job roles\'');
    const b = await row('ctl-b');
    assert.deepEqual(JSON.parse(await docOf(controllerBoundaryArn(MOTO_ACCOUNT, b.uid))), JSON.parse(controllerBoundaryPolicy([])));
    // The same buckets again: nothing written.
    await grantControllerBuckets(ctx, a, [jobText], {});
    assert.equal((await iam.send(new ListPolicyVersionsCommand({ PolicyArn: arnA }))).Versions?.length, 2);
  });

  it('a controller with no boundary of its own (launched by an older Skydeck) is refused bucket grants with the fix; nothing is granted or recorded', async () => {
    const c = await launchController('ctl-old');
    await iam.send(new DeletePolicyCommand({ PolicyArn: controllerBoundaryArn(MOTO_ACCOUNT, c.uid) }));
    await assert.rejects(grantControllerBuckets(ctx, c, [jobText], {}),
      (e: Error) => /launched by an older Skydeck, whose job-cluster roles could reach any S3 bucket/.test(e.message) && /down the controller/.test(e.message));
    assert.deepEqual((await iam.send(new ListRolePoliciesCommand({ RoleName: `skydeck-${c.uid}` }))).PolicyNames, ['skydeck-jobs-controller']);
    assert.equal(JSON.parse((await row('ctl-old')).handle!).placement.bucketAccess, undefined);
    assert.ok((await down(ctx, 'ctl-old')).cleaned);
  });

  it('the sweep lists a leftover boundary no row owns and deletes it with proof; a look-alike not tagged as its uid is not listed', async () => {
    const uid = randomUUID();
    const arn = controllerBoundaryArn(MOTO_ACCOUNT, uid);
    await ensureControllerBoundary(iam, arn, uid, tagsFor({ clusterName: 'gone-ctl', uid, workspaceId: 'ws-x' }), [{ store: 's3', bucket: 'left-bkt' }]);
    const fake = randomUUID();
    await iam.send(new CreatePolicyCommand({
      PolicyName: `skydeck-job-boundary-${fake}`, Path: '/skydeck/', PolicyDocument: controllerBoundaryPolicy([]), Tags: [{ Key: TAG_UID, Value: uid }],
    }));
    const stray = (await findLeakedInstances(ctx, ['aws'])).strayIdentities ?? [];
    assert.deepEqual(stray.map((i) => [i.kind, i.name, i.uid, i.cluster]), [[KIND, `skydeck-job-boundary-${uid}`, uid, 'gone-ctl']]);
    const r = await deleteStrayIdentity(ctx, stray[0]);
    assert.ok(r.deleted, r.message);
    assert.match(r.message, new RegExp(`deleted ${KIND} skydeck-job-boundary-${uid} \\(proof: GetPolicy → NoSuchEntity\\)`));
    await assert.rejects(iam.send(new GetPolicyCommand({ PolicyArn: arn })), noSuch);
  });

  it('down of the controller deletes its role, then its boundary, each with the proof named', async () => {
    for (const name of ['ctl-a', 'ctl-b']) {
      const { uid } = await row(name);
      const d = await down(ctx, name);
      assert.ok(d.cleaned, d.notes.join('\n'));
      assert.ok(d.notes.some((n) => n === `deleted ${KIND} skydeck-job-boundary-${uid} (proof: GetPolicy → NoSuchEntity)`), d.notes.join('\n'));
      assert.ok(d.notes.some((n) => /deleted IAM role .*GetRole → NoSuchEntity/.test(n)), d.notes.join('\n'));
      await assert.rejects(iam.send(new GetPolicyCommand({ PolicyArn: controllerBoundaryArn(MOTO_ACCOUNT, uid) })), noSuch);
    }
    assert.deepEqual((await findLeakedInstances(ctx, ['aws'])).strayIdentities ?? [], []);
  });
});
