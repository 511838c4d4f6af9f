// A managed-jobs controller's role holds two inline policies: its own (controllerPolicy.ts) and
// the buckets of the jobs submitted to it (controllerBuckets.ts). IAM's 10,240-character quota
// is for a role's inline policies together, so a job's bucket list that would fit a plain
// cluster's role may not fit the controller's. Such a job is refused by Skydeck with the limit
// named, before anything is granted or recorded on the row (the row's buckets are what a
// stopped controller is started again with: a recorded bucket list IAM refuses would stop
// every later start). Moto does not enforce the quota, so only
// Skydeck's own check can refuse here: without it the grant goes through.
import * as assert from 'node:assert/strict';
import { GetRolePolicyCommand, IAMClient, ListRolePoliciesCommand } from '@aws-sdk/client-iam';
import { getCluster, putCluster } from '../../../src/core/state';
import { down, type OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { grantControllerBuckets } from '../../../src/core/managed/remote/controllerBuckets';
import { controllerPolicy } from '../../../src/core/clouds/aws/controllerPolicy';
import { controllerBoundaryArn } from '../../../src/core/clouds/aws/controllerBoundary';
import { ROLE_POLICY_MAX, bucketPolicy, boundedBucketPolicy, profileNameOf } from '../../../src/core/clouds/aws/bucketPolicy';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { task } from '../../unit/task/helpers';
import { MOTO_ACCOUNT, REGION, startBed, type AwsBed, bedOpsContext } from './helpers';

const RESOURCES = `resources:\n  infra: aws/${REGION}\n  instance_type: t3.micro\n`;
const buckets = (n: number) => Array.from({ length: n }, (_, i) => `job-bucket-${String(i).padStart(3, '0')}`);
const jobText = (names: string[]) => `name: j\nresources: {cloud: aws}\nfile_mounts:\n${names.map((b, i) => `  /in${i}: s3://${b}\n`).join('')}run: ls\n`;

describe('aws controller role: its own policy counts against the quota a job\'s buckets share', function () {
  this.timeout(120_000);
  let bed: AwsBed;
  let ctx: OpsContext;
  let iam: IAMClient;

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
    const provider = bed.provider({ iamEndpoint: bed.moto.url, iamBackoffMs: 20, zones: { [REGION]: ['us-east-1a'] } });
    ctx = await bedOpsContext(bed, provider);
    iam = new IAMClient({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
  });
  after(async () => {
    ctx?.store.close();
    iam?.destroy();
    await bed?.close();
  });

  it('a job whose buckets fit a plain role but not beside the controller\'s policy is refused, naming both, and nothing is granted', async () => {
    const row = await launchOnProvider(ctx, 'ctl-size', task(RESOURCES), { cloud: 'aws', autostop: { minutes: null, down: false }, jobsController: true });
    const own = controllerPolicy(row.uid, controllerBoundaryArn(MOTO_ACCOUNT, row.uid)).length;
    // 60 buckets: fits alone, not with the controller's own policy (the size this test relies on).
    const many = buckets(60);
    const alone = bucketPolicy(many.map((bucket) => ({ store: 's3' as const, bucket }))).length;
    assert.ok(alone <= ROLE_POLICY_MAX && alone + own > ROLE_POLICY_MAX, `${alone} + ${own}`);
    assert.doesNotThrow(() => boundedBucketPolicy(many.map((bucket) => ({ store: 's3' as const, bucket }))));

    await assert.rejects(grantControllerBuckets(ctx, row, [jobText(many)], {}),
      (e: Error) => e.message.includes(`more than the 10,240 AWS allows a role (the managed-jobs controller's own policy of ${own} characters`));
    const name = profileNameOf(row.uid);
    assert.deepEqual((await iam.send(new ListRolePoliciesCommand({ RoleName: name }))).PolicyNames, ['skydeck-jobs-controller'], 'no bucket policy was written');
    // The job's buckets that do fit are granted as before, beside the controller's policy.
    await grantControllerBuckets(ctx, row, [jobText(buckets(3))], {});
    const doc = JSON.parse(decodeURIComponent((await iam.send(new GetRolePolicyCommand({ RoleName: name, PolicyName: 'skydeck-buckets' }))).PolicyDocument!));
    assert.ok(JSON.stringify(doc).includes('arn:aws:s3:::job-bucket-002'));

    // A job naming 300 buckets: refused the same way, the granted three left as they were.
    await assert.rejects(grantControllerBuckets(ctx, row, [jobText(buckets(300))], {}), /more than the 10,240 AWS allows a role/);
    const after = JSON.parse(decodeURIComponent((await iam.send(new GetRolePolicyCommand({ RoleName: name, PolicyName: 'skydeck-buckets' }))).PolicyDocument!));
    assert.deepEqual(after, doc);

    // The refused jobs' buckets are not on the row: the stopped controller starts again with
    // the three granted (its recorded placement is what the start launches with).
    const cur = (await ctx.store.read((db) => getCluster(db, 'ctl-size')))!;
    assert.deepEqual((JSON.parse(cur.handle!).placement.bucketAccess as { bucket: string }[]).map((a) => a.bucket), buckets(3));
    const p = ctx.providers!.get('aws')!;
    await p.stopInstances({ uid: row.uid, region: REGION });
    await p.waitInstances({ uid: row.uid, region: REGION }, 'stopped', 20_000);
    await ctx.store.write((db) => putCluster(db, { ...cur, status: 'STOPPED' }));
    const again = await launchOnProvider(ctx, 'ctl-size', task(RESOURCES), { cloud: 'aws', autostop: { minutes: null, down: false }, jobsController: true, existing: { ...cur, status: 'STOPPED' } });
    assert.equal(again.status, 'UP');

    const r = await down(ctx, 'ctl-size');
    assert.ok(r.cleaned, r.notes.join('\n'));
    assert.equal(await ctx.store.read((db) => getCluster(db, 'ctl-size')), undefined);
  });
});
