// Issue 16 follow-ups on moto (EC2 + IAM): a reused cluster's bucket role is widened to the new
// task's buckets (and a cluster without one is refused with the fix); down waits for the role
// and profile to be deleted and names the proof; one a down could not delete is listed by
// `skydeck leaks` and deleted there. No node is connected to (the emulator's addresses are not ours).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GetInstanceProfileCommand, GetRoleCommand, GetRolePolicyCommand, IAMClient } from '@aws-sdk/client-iam';
import { staticProviders, tagsFor } from '../../../src/core/clouds/provider';
import { StateStore } from '../../../src/core/state';
import { Connections, deleteStrayIdentity, down, type OpsContext } from '../../../src/core/ops';
import { OpsError } from '../../../src/core/ops/errors';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { planBuckets } from '../../../src/core/ops/bucketPlan';
import { grantPlannedBuckets } from '../../../src/core/ops/bucketGrant';
import { findLeakedInstances } from '../../../src/core/ops/leaks';
import { accessOfPolicy } from '../../../src/core/clouds/aws/bucketPolicy';
import { runCli } from '../../../src/cli/main';
import type { Bootstrap } from '../../../src/core/provision';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { task } from '../../unit/task/helpers';
import { REGION, runRequest, startBed, type AwsBed } from './helpers';

const noBootstrap: Bootstrap = async () => ({ workdir: '/tmp' });
const RESOURCES = 'resources:\n  infra: aws/us-east-1\n  instance_type: t3.micro\n';
const noSuchEntity = (e: Error) => e.name === 'NoSuchEntityException' || e.name === 'NoSuchEntity';

describe('aws: bucket roles of reused clusters, and their deletion at down and in the sweep (issue 16)', function () {
  this.timeout(120_000);
  let bed: AwsBed;
  let ctx: OpsContext;
  let provider: ReturnType<AwsBed['provider']>;
  let iam: IAMClient;
  let progress: string[];
  let warnings: string[];

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
    // A watcher that gives up quickly, so "down could not finish" is reachable without waiting.
    provider = bed.provider({ iamBackoffMs: 20, zones: { [REGION]: ['us-east-1a'] }, cleanupTimeoutMs: 1500 });
    const root = fs.mkdtempSync(path.join(bed.dir, 'ws-'));
    ctx = {
      store: await StateStore.openWorkspace(root), workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
      connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts'), workspaceRoot: root }),
      progress: (m) => progress.push(m), log: () => undefined, warn: (m) => warnings.push(m), user: 'tester',
      providers: staticProviders(provider), bootstrap: noBootstrap, storageAccess: { endpoint: bed.moto.url },
      timing: { launchGraceMs: 2000, pollMs: 100, runningTimeoutMs: 20_000, confirmTimeoutMs: 5000, reissueAfterMs: 1000, transientRetries: 1, backoffMs: 50 },
    };
    iam = new IAMClient({ region: 'us-east-1', endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
  });
  beforeEach(() => {
    progress = [];
    warnings = [];
  });
  after(async () => {
    ctx?.store.close();
    iam?.destroy();
    await bed?.close();
  });
  afterEach(() => bed?.proxy.clear());

  const launch = (name: string, yaml: string) => launchOnProvider(ctx, name, task(RESOURCES + yaml), { cloud: 'aws', autostop: { minutes: null, down: false } });
  const allowed = async (role: string) => {
    const doc = (await iam.send(new GetRolePolicyCommand({ RoleName: role, PolicyName: 'skydeck-buckets' }))).PolicyDocument!;
    return accessOfPolicy(decodeURIComponent(doc)).map((a) => `${a.bucket}/${a.prefix ?? ''}`).sort();
  };

  it('a task reusing the cluster with new buckets widens its role to the union, once; a GCS bucket is not AWS\'s to grant', async () => {
    const row = await launch('grow', 'file_mounts:\n  /a: s3://first-bkt/in\n');
    const role = `skydeck-${row.uid}`;
    assert.deepEqual(await allowed(role), ['first-bkt/in']);
    const plan = await planBuckets(ctx, task('file_mounts:\n  /a: s3://first-bkt/in\n  /b: {source: s3://second-bkt/sub, mode: COPY}\n'), 'aws');
    await grantPlannedBuckets(ctx, row, plan);
    assert.deepEqual(await allowed(role), ['first-bkt/in', 'second-bkt/sub']);
    assert.deepEqual(progress.filter((l) => l.startsWith('Allowed')), [`Allowed IAM role ${role} of grow the task's buckets too (s3://first-bkt, s3://second-bkt)`]);
    assert.deepEqual(plan.map((p) => p.justGranted), [true, true], 'the mounts may retry a refusal while IAM applies the grant');

    progress = [];
    const again = await planBuckets(ctx, task('file_mounts:\n  /b: s3://second-bkt/sub\n'), 'aws');
    await grantPlannedBuckets(ctx, row, again);
    assert.deepEqual(await allowed(role), ['first-bkt/in', 'second-bkt/sub'], 'what it allowed is kept');
    assert.deepEqual(progress.filter((l) => l.startsWith('Allowed')), [], 'nothing new: no write, no message');
    assert.equal(again[0].justGranted, undefined);
    await down(ctx, 'grow');
  });

  it('a cluster launched without S3 buckets (no instance profile) is refused with the fix, and nothing is created', async () => {
    const row = await launch('bare', 'file_mounts:\n  /g: gs://not-aws\n');
    const plan = await planBuckets(ctx, task('file_mounts:\n  /d: s3://late-bkt\n'), 'aws');
    await assert.rejects(grantPlannedBuckets(ctx, row, plan), (e: Error) => e instanceof OpsError && e.kind === 'usage'
      && /cluster bare: the cluster was launched without S3 buckets, so its nodes have no instance profile to read s3:\/\/late-bkt with: .*launch this task again.*"skydeck down bare"/.test(e.message));
    await assert.rejects(iam.send(new GetRoleCommand({ RoleName: `skydeck-${row.uid}` })), noSuchEntity);
    await down(ctx, 'bare');
  });

  it('down waits for the role and profile to be deleted and names the proof (no background clean-up awaited)', async () => {
    const row = await launch('gone', 'file_mounts:\n  /d: s3://gone-bkt\n');
    const name = `skydeck-${row.uid}`;
    const d = await down(ctx, 'gone');
    assert.ok(d.notes.includes(`deleted IAM role ${name} (proof: GetRole → NoSuchEntity)`), d.notes.join('\n'));
    assert.ok(d.notes.includes(`deleted instance profile ${name} (proof: GetInstanceProfile → NoSuchEntity)`), d.notes.join('\n'));
    await assert.rejects(iam.send(new GetRoleCommand({ RoleName: name })), noSuchEntity);
    await assert.rejects(iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name })), noSuchEntity);
    assert.deepEqual(warnings, []);
  });

  it('a down that cannot delete the role says so; skydeck leaks lists it and --delete-identity deletes it with proof', async () => {
    const row = await launch('stuck', 'file_mounts:\n  /d: s3://stuck-bkt\n');
    const name = `skydeck-${row.uid}`;
    // The security group cannot be deleted (EC2 says something still uses it): the clean-up that
    // deletes the role after it does not finish within its time limit.
    bed.proxy.errors.push({ action: 'DeleteSecurityGroup', code: 'DependencyViolation', status: 400, times: Infinity });
    try {
      const d = await down(ctx, 'stuck');
      assert.ok(d.notes.some((n) => n.startsWith(`IAM role ${name} is left: `) && n.includes('"skydeck leaks" lists it')), d.notes.join('\n'));
      assert.ok(warnings.some((w) => w.startsWith(`stuck: IAM role ${name} is left`)), warnings.join('\n'));
      assert.ok(progress.includes(`Deleting IAM role ${name} once the instances are terminated`), progress.join('\n'));
    } finally {
      await provider.settled();
      bed.proxy.clear();
    }
    assert.equal((await iam.send(new GetRoleCommand({ RoleName: name }))).Role?.RoleName, name, 'the role is still there');
    let out = '';
    const io = { out: (t: string) => (out += t), outBytes: (b: Buffer) => (out += b.toString()), err: (t: string) => (out += t) };
    assert.equal(await runCli(['leaks'], io, async () => ctx), 0, out);
    assert.match(out, new RegExp(`IAM role +${name} +stuck[^]*skydeck leaks --delete-identity NAME -y`));
    out = '';
    assert.equal(await runCli(['leaks', '--delete-identity', name], io, async () => ctx), 2, 'needs -y');
    out = '';
    assert.equal(await runCli(['leaks', '--delete-identity', name, '-y'], io, async () => ctx), 0, out);
    assert.match(out, new RegExp(`deleted instance profile ${name} \\(proof: GetInstanceProfile → NoSuchEntity\\); deleted IAM role ${name} \\(proof: GetRole → NoSuchEntity\\)`));
    await assert.rejects(iam.send(new GetRoleCommand({ RoleName: name })), noSuchEntity);
  });

  it('a stray identity whose instance still runs is kept, naming the instance', async () => {
    const req = runRequest({ placement: { cloud: 'aws', region: REGION, zone: 'us-east-1a', instanceType: 't3.micro', useSpot: false, bucketAccess: [{ store: 's3', bucket: 'held-bkt' }] } });
    const uid = req.uid;
    const run = await provider.runInstances({ ...req, tags: tagsFor({ clusterName: 'held', uid, workspaceId: 'ws-x' }) });
    const sweep = await findLeakedInstances(ctx);
    const id = sweep.strayIdentities?.find((i) => i.uid === uid);
    assert.ok(id, JSON.stringify(sweep.strayIdentities));
    const r = await deleteStrayIdentity(ctx, id);
    assert.equal(r.deleted, false);
    assert.match(r.message, new RegExp(`IAM role skydeck-${uid} kept: instance\\(s\\) ${run.created[0]} \\(running\\) of cluster held still hold it`));
    assert.equal((await iam.send(new GetRoleCommand({ RoleName: `skydeck-${uid}` }))).Role?.RoleName, `skydeck-${uid}`);
    await provider.terminateInstances({ uid, region: REGION });
    await provider.settled();
    await assert.rejects(iam.send(new GetRoleCommand({ RoleName: `skydeck-${uid}` })), noSuchEntity);
  });
});
