// Issue 17 on moto: the managed-jobs controller on an AWS VM (jobs.controller: aws/us-east-1).
// The controller cluster is launched through the real provision loop against moto (RunInstances
// with its own instance profile); its head is a loopback sshd test host standing in for the
// instance (sshdStandIn), never the address moto hands out. The real CLI bundle is uploaded
// there and the real controller runs a managed job (on a `local` cluster of that node: a job
// cluster on AWS would need the node to reach moto's instances, which are not machines). The
// node's agent counts the controller busy while the job runs and stops the node once idle;
// a look at the stopped VM starts nothing, "jobs queue --refresh" starts it; down deletes its role, profile
// and job-role boundary with proof, and the leak sweep lists them when no row owns them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DescribeInstanceAttributeCommand, DescribeInstancesCommand, EC2Client, StopInstancesCommand } from '@aws-sdk/client-ec2';
import { GetInstanceProfileCommand, GetPolicyCommand, GetPolicyVersionCommand, GetRoleCommand, GetRolePolicyCommand, IAMClient, ListRolePoliciesCommand } from '@aws-sdk/client-iam';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { getCluster, putCluster } from '../../../src/core/state';
import { down, type OpsContext } from '../../../src/core/ops';
import { findLeakedInstances } from '../../../src/core/ops/leaks';
import { NODE_MANAGED_STORE } from '../../../src/core/ops/controllerNode';
import { cliBundle, controllerClusterName, guardControllerDown, guardControllerStop, openRemoteClient, type ControllerPlace } from '../../../src/core/managed';
import type { RemoteManagedClient } from '../../../src/core/managed/remote/remoteClient';
import { controllerPolicy } from '../../../src/core/clouds/aws/controllerPolicy';
import { controllerBoundaryArn, controllerBoundaryPolicy } from '../../../src/core/clouds/aws/controllerBoundary';
import { accessOfPolicy } from '../../../src/core/clouds/aws/bucketPolicy';
import { startHosts, type TestHosts } from '../../hosts';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { cliBundleCopy, until } from '../managed/remoteCli';
import { MOTO_ACCOUNT, REGION, startBed, type AwsBed } from './helpers';
import { standInContext } from './sshdStandIn';

const PLACE: ControllerPlace = { kind: 'cloud', cloud: 'aws', region: REGION };
const noSuch = (e: unknown) => (e as { name?: string }).name === 'NoSuchEntityException' || (e as { name?: string }).name === 'NoSuchEntity';

describe('managed jobs with the controller on an AWS VM (moto; the VM is a loopback sshd host)', function () {
  this.timeout(600_000);
  let bed: AwsBed;
  let hosts: TestHosts;
  let ctx: OpsContext;
  let ec2: EC2Client;
  let iam: IAMClient;
  let cli = '';
  const progress: string[] = [];
  const saved = { poll: process.env.SKYDECK_CONTROLLER_POLL_MS };

  before(async function () {
    skipWithoutMoto(this);
    this.timeout(600_000);
    bed = await startBed();
    hosts = await startHosts(1);
    cli = await cliBundleCopy();
    process.env.SKYDECK_CONTROLLER_POLL_MS = '200'; // forwarded to the node's controller
    ctx = await standInContext({ dir: bed.dir, hosts, provider: bed.provider({ zones: { [REGION]: ['us-east-1a'] } }), progress });
    ec2 = new EC2Client({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
    iam = new IAMClient({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
  });
  after(async () => {
    if (saved.poll === undefined) delete process.env.SKYDECK_CONTROLLER_POLL_MS;
    else process.env.SKYDECK_CONTROLLER_POLL_MS = saved.poll;
    await ctx?.connections.closeAll();
    ctx?.store.close();
    ec2?.destroy();
    iam?.destroy();
    await hosts?.stop(); // every process of the host's user (agent, controller, job) ends with it
    await bed?.close();
    if (cli) fs.rmSync(path.dirname(cli), { recursive: true, force: true });
  });

  const instancesOf = async (uid: string) => {
    const r = await ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: `tag:${TAG_UID}`, Values: [uid] }] }));
    return (r.Reservations ?? []).flatMap((x) => x.Instances ?? []);
  };
  const open = (launch?: boolean, refresh?: boolean) => openRemoteClient(ctx, PLACE, { bundle: cliBundle(cli), idleMinutes: 1, launch, refresh }) as Promise<RemoteManagedClient>;
  const host = () => hosts.hosts[0];

  it('launches the controller VM with its scoped instance profile, runs a job through it, autostops once idle, starts again, downs with proof', async () => {
    // 1. First use launches the controller cluster through the provision loop.
    const client = await open();
    const row = client.cluster;
    const name = controllerClusterName(PLACE);
    assert.equal(row.name, name);
    assert.equal(row.provider, 'aws');
    assert.equal(row.region, REGION);
    assert.equal(row.autostop_minutes, 1);
    assert.equal(row.autostop_down, 0, 'a stop, not a down: the disk keeps the controller store');
    assert.ok(progress.some((m) => m.startsWith(`Launching the managed-jobs controller cluster ${name} (a t3.small on aws/${REGION})`)), progress.join('\n'));

    // 2. The VM: a t3.small with the role's instance profile, stopping (not terminating) on shutdown.
    const [inst] = await instancesOf(row.uid);
    assert.equal(inst.InstanceType, 't3.small');
    const profileName = `skydeck-${row.uid}`;
    assert.match(inst.IamInstanceProfile?.Arn ?? '', new RegExp(`:instance-profile/skydeck/controller/${profileName}$`));
    const behaviour = await ec2.send(new DescribeInstanceAttributeCommand({ InstanceId: inst.InstanceId!, Attribute: 'instanceInitiatedShutdownBehavior' }));
    assert.equal(behaviour.InstanceInitiatedShutdownBehavior?.Value, 'stop');

    // 3. Its identity: a role trusted by EC2 only, with exactly the controller policy.
    const role = (await iam.send(new GetRoleCommand({ RoleName: profileName }))).Role!;
    assert.equal(role.Path, '/skydeck/controller/', 'on the controllers\' own path, which every controller policy denies');
    assert.deepEqual(JSON.parse(decodeURIComponent(role.AssumeRolePolicyDocument!)).Statement,
      [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }]);
    assert.ok(role.Tags?.some((t) => t.Key === TAG_UID && t.Value === row.uid));
    assert.deepEqual((await iam.send(new ListRolePoliciesCommand({ RoleName: profileName }))).PolicyNames, ['skydeck-jobs-controller'],
      'no bucket policy: the controller mounts no bucket');
    const doc = JSON.parse(decodeURIComponent((await iam.send(new GetRolePolicyCommand({ RoleName: profileName, PolicyName: 'skydeck-jobs-controller' }))).PolicyDocument!));
    const boundary = controllerBoundaryArn(MOTO_ACCOUNT, row.uid);
    assert.deepEqual(doc, JSON.parse(controllerPolicy(row.uid, boundary)));
    assertScoped(doc, row.uid, boundary);
    // Its own job-role boundary, which its policy names, was made here first; its own role
    // carries none (its own policy is wider than the boundary: controllerBoundary.ts).
    assert.equal((await iam.send(new GetPolicyCommand({ PolicyArn: boundary }))).Policy?.Path, '/skydeck/');
    assert.equal(role.PermissionsBoundary, undefined);

    // 4. The node's agent got the controller's autostop: its store makes the node busy.
    const agent = ctx.connections.client(row);
    const st = (await agent.status()).autostop!;
    assert.equal(st.idle_minutes, 1);
    assert.equal(st.action, 'shutdown');
    assert.equal(st.managed_jobs_db, NODE_MANAGED_STORE);

    // 5. A managed job through the controller on the VM; the node counts busy while it runs.
    const { id, controller } = await client.submit({
      name: 'via-aws-ctl',
      tasks: ['name: via-aws-ctl\nresources: {cloud: local}\nrun: |\n  while [ ! -e "$HOME/go" ]; do sleep 0.2; done\n  echo "ran on the controller VM"\n'],
    });
    assert.match(controller.where, new RegExp(`^controller cluster ${name}$`));
    // 5b. A job that mounts S3 buckets: the VM reads them itself, so its own role is widened to
    // exactly those (granted from here, with this machine's credentials), and to nothing else.
    const buckets = await client.submit({
      name: 'with-buckets',
      tasks: ['name: with-buckets\nresources: {cloud: local}\nfile_mounts:\n  /in: s3://jobs-in/data\n  /out: {name: jobs-out-bkt, store: s3, mode: MOUNT}\nrun: "true"\n'],
    });
    const granted = decodeURIComponent((await iam.send(new GetRolePolicyCommand({ RoleName: profileName, PolicyName: 'skydeck-buckets' }))).PolicyDocument!);
    // The named bucket is the controller's to make and end; the URL one is only read and written.
    assert.deepEqual(accessOfPolicy(granted).map((a) => [a.bucket, a.prefix ?? '', !!a.manage]).sort(), [['jobs-in', 'data', false], ['jobs-out-bkt', '', true]]);
    assert.deepEqual(JSON.parse(decodeURIComponent((await iam.send(new GetRolePolicyCommand({ RoleName: profileName, PolicyName: 'skydeck-jobs-controller' }))).PolicyDocument!)), doc, 'the controller policy is untouched');
    // Its job roles' boundary got the same buckets, in the same step (objects only: no bucket making).
    const bv = (await iam.send(new GetPolicyCommand({ PolicyArn: boundary }))).Policy!.DefaultVersionId!;
    assert.deepEqual(JSON.parse(decodeURIComponent((await iam.send(new GetPolicyVersionCommand({ PolicyArn: boundary, VersionId: bv }))).PolicyVersion!.Document!)),
      JSON.parse(controllerBoundaryPolicy([{ store: 's3', bucket: 'jobs-in', prefix: 'data' }, { store: 's3', bucket: 'jobs-out-bkt' }])));
    await client.cancel([buckets.id]);
    await until('the bucket job ended', async () => { const j = await client.job(buckets.id); return !!j && j.clusterName === null && ['CANCELLED', 'FAILED', 'FAILED_NO_RESOURCE', 'FAILED_SETUP'].includes(j.status); }, 180_000);
    await until('the job RUNNING', async () => (await client.job(id))?.status === 'RUNNING', 180_000);
    // The controller on the node: this machine's credentials never reach it, the VM's region does.
    const pid = Number((await host().exec(`sed -n 's/.*"pid":\\([0-9]*\\).*/\\1/p' ~/.skydeck/jobs-controller/home/.skydeck/managed.db.controller`)).stdout.trim());
    assert.ok(pid > 0, 'the lease names the node\'s controller');
    const environ = (await host().exec(`tr '\\0' '\\n' < /proc/${pid}/environ`)).stdout.split('\n');
    assert.ok(environ.includes(`AWS_REGION=${REGION}`), environ.join(' '));
    assert.ok(environ.includes('SKYDECK_AWS_CONTROLLER_NODE=1'), 'the node\'s CLI uses the boundary and never writes it');
    assert.ok(environ.includes(`SKYDECK_AWS_CONTROLLER_UID=${row.uid}`), 'and knows whose boundary it is');
    assert.deepEqual(environ.filter((l) => /^AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|PROFILE)=/.test(l)), []);
    // The shutdown is replaced by a marker (the agent's test hook, recorded by this client call)
    // and the idle time shortened to 3 s; what counts as busy is the controller's own setting.
    const loc = await agent.connect();
    const cfg = await agent.transport.exec([loc.python, loc.entry, '--base', loc.base, 'configure'], {
      stdin: JSON.stringify({ autostop: { idle_minutes: 0.05, action: 'shutdown', wait_for: 'jobs', managed_jobs_db: NODE_MANAGED_STORE } }),
      env: { SKYDECK_SHUTDOWN_COMMAND: 'date +%s >> "$HOME/shutdown-ran"' },
    });
    assert.equal(cfg.code, 0, cfg.stderr.toString());
    await new Promise((r) => setTimeout(r, 7000)); // more than twice the idle time
    assert.equal((await agent.status()).autostop!.idle_seconds, null, 'busy: a managed job is RUNNING (the agent itself runs none)');
    assert.equal((await host().exec('test -e "$HOME/shutdown-ran" && echo fired || echo no')).stdout.trim(), 'no');
    // `skydeck stop` of the controller VM is refused while the job runs: its cluster would bill with no controller.
    await assert.rejects(guardControllerStop(ctx, name, { bundle: cliBundle(cli) }),
      new RegExp(`${name} is the managed-jobs controller of 1 unfinished job\\(s\\) \\(${id}\\); stopped, it would leave their clusters billing with no controller`));
    await host().exec('touch "$HOME/go"');
    await until('the job SUCCEEDED with its cluster gone', async () => {
      const j = await client.job(id);
      return j?.status === 'SUCCEEDED' && j.clusterName === null;
    }, 180_000);
    await client.close();
    await guardControllerStop(ctx, name, { bundle: cliBundle(cli) }); // every job ended: a stop may go on

    // 6. Idle: the agent shuts the node down (the marker), once.
    await until('the self-stop', async () => (await host().exec('cat "$HOME/shutdown-ran" 2>/dev/null')).stdout.trim() !== '', 60_000);
    const result = (await agent.status()).autostop!.last_result as unknown as { ok: boolean; done: string[] };
    assert.deepEqual([result.ok, result.done], [true, ['head']]);
    // What AWS does with an OS shutdown of this instance (behaviour "stop"): moto is told directly.
    await ec2.send(new StopInstancesCommand({ InstanceIds: [inst.InstanceId!] }));
    await ctx.connections.forget(name);
    // The editor's look asks the cloud, sees the VM stopped, and neither connects nor starts it.
    await assert.rejects(openRemoteClient(ctx, PLACE, { bundle: cliBundle(cli), launch: false, editor: true }),
      new RegExp(`the managed-jobs controller cluster ${name} is STOPPED.*: its jobs are unknown until it is up again; "skydeck jobs queue --refresh" starts it`));
    assert.deepEqual((await instancesOf(row.uid)).map((i) => i.State?.Name), ['stopped']);

    // 7. A CLI look (jobs queue) asks the cloud too and does not start it; --refresh starts it
    // again and finds the job's history.
    await assert.rejects(open(false), new RegExp(`the managed-jobs controller VM ${name} is STOPPED: it stops itself once no managed job is active, so none is running\\. ` +
      'Its job list is on its disk: "skydeck jobs queue --refresh" starts it'));
    assert.deepEqual((await instancesOf(row.uid)).map((i) => i.State?.Name), ['stopped'], 'a look started nothing');
    progress.length = 0;
    const again = await open(false, true);
    try {
      assert.ok(progress.some((m) => m.startsWith(`Starting the managed-jobs controller cluster ${name}`)), progress.join('\n'));
      assert.equal(again.cluster.uid, row.uid, 'the same VM, not a new one');
      // The started VM's agent got the controller's autostop again (the bootstrap's, not the test's 3 s).
      const back = (await ctx.connections.client(again.cluster).status()).autostop!;
      assert.deepEqual([back.idle_minutes, back.managed_jobs_db, back.fired_at], [1, NODE_MANAGED_STORE, null]);
      assert.deepEqual((await instancesOf(row.uid)).map((i) => i.State?.Name), ['running']);
      const listed = (await again.list()).jobs.map((j) => [j.id, j.status]);
      assert.deepEqual(listed.find(([j]) => j === id), [id, 'SUCCEEDED']);
      assert.equal(listed.length, 2, JSON.stringify(listed));
    } finally {
      await again.close();
    }

    // 8. With no row, the sweep names the VM and its role; with the row back, neither.
    const cur = (await ctx.store.read((db) => getCluster(db, name)))!;
    await ctx.store.write((db) => db.run('DELETE FROM clusters WHERE name = ?', [name]));
    const stray = await findLeakedInstances(ctx, ['aws']);
    assert.deepEqual(stray.thisWorkspace.map((l) => l.instance.id), [inst.InstanceId]);
    assert.deepEqual((stray.strayIdentities ?? []).map((i) => [i.kind, i.name]), [['IAM role', profileName], ['IAM permissions boundary', `skydeck-job-boundary-${row.uid}`]]);
    await ctx.store.write((db) => putCluster(db, cur));
    const owned = await findLeakedInstances(ctx, ['aws']);
    assert.deepEqual([owned.thisWorkspace, owned.strayIdentities ?? []], [[], []]);

    // 9. Down (the CLI's guard first: no unfinished job) terminates with proof and deletes the identity with proof.
    await guardControllerDown(ctx, name, false, { bundle: cliBundle(cli) });
    const d = await down(ctx, name, { graceSeconds: 1 });
    assert.ok(d.cleaned, d.notes.join('\n'));
    assert.equal(await ctx.store.read((db) => getCluster(db, name)), undefined);
    assert.deepEqual((await instancesOf(row.uid)).map((i) => i.State?.Name), ['terminated']);
    await assert.rejects(iam.send(new GetRoleCommand({ RoleName: profileName })), noSuch);
    await assert.rejects(iam.send(new GetInstanceProfileCommand({ InstanceProfileName: profileName })), noSuch);
    assert.ok(d.notes.some((n) => /GetRole → NoSuchEntity/.test(n)) || progress.some((n) => /GetRole → NoSuchEntity/.test(n)), [...d.notes, ...progress].join('\n'));
    const after = await findLeakedInstances(ctx, ['aws']);
    assert.deepEqual([after.thisWorkspace, after.strayIdentities ?? []], [[], []]);
    // Its job roles' boundary went after its role, with proof.
    await assert.rejects(iam.send(new GetPolicyCommand({ PolicyArn: boundary })), noSuch);
    assert.ok([...d.notes, ...progress].some((n) => n.includes(`IAM permissions boundary skydeck-job-boundary-${row.uid} (proof: GetPolicy → NoSuchEntity)`)), [...d.notes, ...progress].join('\n'));
  });
});

type Statement = { Sid: string; Effect: string; Action: string | string[]; Resource: string | string[]; Condition?: Record<string, Record<string, unknown>> };

/** What the controller's policy must and must not allow, read from the document itself. */
function assertScoped(doc: { Statement: Statement[] }, uid: string, boundary: string): void {
  const list = (v: string | string[]) => ([] as string[]).concat(v);
  const allows = doc.Statement.filter((s) => s.Effect === 'Allow');
  for (const s of allows) {
    for (const a of list(s.Action)) assert.doesNotMatch(a, /\*/, `${s.Sid}: no wildcard action (${a})`);
    // Only reads may name every resource.
    if (list(s.Resource).includes('*')) {
      assert.ok(list(s.Action).every((a) => /^ec2:Describe|^iam:ListRoles$/.test(a)) || s.Condition, `${s.Sid} names every resource without a condition`);
    }
  }
  const by = (action: string) => allows.filter((s) => list(s.Action).includes(action));
  for (const a of ['ec2:TerminateInstances', 'ec2:StopInstances', 'ec2:StartInstances']) {
    const [s, ...more] = by(a);
    assert.equal(more.length, 0, a);
    assert.deepEqual(s.Condition, { Null: { [`aws:ResourceTag/${TAG_UID}`]: 'false' } }, `${a}: only Skydeck-tagged instances`);
  }
  const run = by('ec2:RunInstances').find((s) => list(s.Resource).includes('arn:aws:ec2:*:*:instance/*'))!;
  assert.deepEqual(run.Condition, { Null: { [`aws:RequestTag/${TAG_UID}`]: 'false' } }, 'new instances must carry the uid tag');
  for (const s of by('iam:CreateRole').concat(by('iam:PutRolePolicy'), by('iam:PassRole'))) {
    assert.deepEqual(list(s.Resource), ['arn:aws:iam::*:role/skydeck/*'], `${s.Sid}: only Skydeck's roles`);
  }
  assert.deepEqual(by('iam:PassRole')[0].Condition, { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } });
  for (const s of by('iam:CreateRole').concat(by('iam:PutRolePolicy'))) {
    assert.deepEqual(s.Condition, { StringEquals: { 'iam:PermissionsBoundary': boundary } }, `${s.Sid}: only roles with the job boundary`);
  }
  const denies = doc.Statement.filter((s) => s.Effect === 'Deny');
  assert.deepEqual(denies.map((s) => [s.Action, s.Resource, s.Condition ?? null]), [
    [['ec2:StopInstances', 'ec2:StartInstances', 'ec2:TerminateInstances'], 'arn:aws:ec2:*:*:instance/*', { StringEquals: { [`aws:ResourceTag/${TAG_UID}`]: uid } }],
    ['iam:DeleteRolePermissionsBoundary', '*', null],
    [['iam:CreateRole', 'iam:PutRolePolicy', 'iam:PutRolePermissionsBoundary', 'iam:AttachRolePolicy'], '*', { StringNotEquals: { 'iam:PermissionsBoundary': boundary } }],
    [['iam:CreatePolicy', 'iam:CreatePolicyVersion', 'iam:DeletePolicy', 'iam:DeletePolicyVersion', 'iam:SetDefaultPolicyVersion', 'iam:TagPolicy', 'iam:UntagPolicy'], 'arn:aws:iam::*:policy/skydeck/*', null],
    ['iam:*', ['arn:aws:iam::*:role/skydeck/controller/*', 'arn:aws:iam::*:instance-profile/skydeck/controller/*'], null],
  ]);
  assert.ok(JSON.stringify(doc).length < 10_240, 'within IAM\'s inline policy size');
}
