// The GCP managed-jobs controller's one firewall rule (jobsFirewall.ts, named by firewall.ts
// jobsFirewallName), on the fake: this machine makes it at the controller's launch (SSH only, to
// instances running as the controller's jobs account: targetServiceAccounts) and deletes it at the
// controller's down with proof; the controller's own identity holds no firewall write
// (controllerRole.ts), which the fake enforces as GCP would (403 naming the permission: it
// evaluates the custom role). Job clusters the VM launches run as the jobs account, carry no
// network tag and get no rule of their own; a job task asking ports is refused before anything is
// made. A controller an older Skydeck made (firewall writes in its role and no jobs rule, or a
// rule targeting a network tag) is refused a job launch, naming the fix; its relaunch takes the
// rights away and makes (or replaces) the rule.
import * as assert from 'node:assert/strict';
import { deleteClusterAfterProof, putCluster, type ClusterRecord } from '../../../src/core/state';
import { down, type OpsContext } from '../../../src/core/ops';
import { findLeakedInstances } from '../../../src/core/ops/leaks';
import { deleteStrayIdentity } from '../../../src/core/ops/identityRelease';
import { controllerClusterName } from '../../../src/core/managed/remote/controllerCluster';
import type { ControllerPlace } from '../../../src/core/managed';
import { CONTROLLER_PERMISSIONS, controllerRole } from '../../../src/core/clouds/gcp/controllerRole';
import { firewallName, jobsFirewallName } from '../../../src/core/clouds/gcp/firewall';
import { jobsAccountEmail } from '../../../src/core/clouds/gcp/jobsAccount';
import type { Json } from '../../support/fakes/gcpFake/model';
import { ensureJobsFirewall } from '../../../src/core/clouds/gcp/jobsFirewall';
import { notFound } from '../../support/fakes/gcpFake/bodies';
import { apiAnswer, controllerVmProvider, instancesOfUid, launchGcpController } from './controllerBed';
import { bedOpsContext, runRequest, startGcpBed, PROJECT, REGION, type GcpBed } from './helpers';

const ZONE = 'us-central1-a';
const PLACE: Extract<ControllerPlace, { kind: 'cloud' }> = { kind: 'cloud', cloud: 'gcp', region: REGION };
const ROLE = controllerRole(PROJECT);
const WRITES = ['compute.firewalls.create', 'compute.firewalls.delete', 'compute.firewalls.update', 'compute.networks.updatePolicy'];

describe('gcp managed-jobs controller: one firewall rule for its job clusters, made and deleted by this machine', function () {
  this.timeout(120_000);
  let bed: GcpBed;
  let ctx: OpsContext;
  let progress: string[];

  beforeEach(async () => {
    bed = await startGcpBed();
    progress = [];
    ctx = await bedOpsContext(bed, bed.provider({ zones: { [REGION]: [ZONE] } }), progress);
  });
  afterEach(async () => {
    await ctx?.connections.closeAll();
    ctx?.store.close();
    await bed?.close();
  });

  const rules = () => [...bed.fake.model.firewalls.keys()].sort();
  const jobsEmail = (uid: string) => jobsAccountEmail(uid, PROJECT);
  /** A job VM's network tags and accounts: what a firewall rule can target it by. */
  const jobVmTargets = (uid: string) => {
    const vm = instancesOf(uid)[0];
    return [(vm.tags as { items?: string[] } | undefined)?.items ?? [], vm.serviceAccounts];
  };
  const instancesOf = (uid: string) => instancesOfUid(bed, uid);
  const launchController = (name?: string): Promise<ClusterRecord> => launchGcpController(ctx, PLACE, name);
  const vmProvider = (ctl: ClusterRecord) => controllerVmProvider(bed, ctx, ctl, REGION, ZONE);
  const answer = apiAnswer;

  it('the launch makes one SSH rule for the job clusters; they run as its target account, carry no tag and get no rule of their own; the VM may write no rule', async () => {
    const ctl = await launchController();
    const name = jobsFirewallName(ctl.uid);
    assert.equal(name, `skydeck-${ctl.uid}-jobs`);
    assert.deepEqual(rules(), [firewallName(ctl.uid), name].sort(), 'the controller\'s own rule and its jobs rule');
    const rule = bed.fake.model.firewalls.get(name)!;
    assert.deepEqual([rule.targetTags, rule.targetServiceAccounts, rule.allowed, rule.direction], [undefined, [jobsEmail(ctl.uid)], [{ IPProtocol: 'tcp', ports: ['22'] }], 'INGRESS']);
    assert.deepEqual(WRITES.filter((x) => CONTROLLER_PERMISSIONS.includes(x)), []);
    assert.deepEqual(WRITES.filter((x) => bed.fake.model.iam.roles.get(ROLE)!.includedPermissions.includes(x)), [], 'the role in the project too');

    const p = vmProvider(ctl);
    const job = runRequest({ zone: ZONE });
    await p.runInstances(job);
    await p.waitInstances(job, 'running', 5000);
    assert.deepEqual(jobVmTargets(job.uid), [[], [{ email: jobsEmail(ctl.uid), scopes: [] }]], 'the jobs account (no scope: no buckets), no tag');
    assert.deepEqual(rules(), [firewallName(ctl.uid), name].sort(), 'no rule of its own');
    await p.terminateInstances(job);
    await p.waitInstances(job, 'terminated', 5000);
    assert.deepEqual(rules(), [firewallName(ctl.uid), name].sort(), 'its end deletes no rule');

    // GCP refuses every firewall write of the VM's token (the fake evaluates the custom role).
    const base = `projects/${PROJECT}/global/firewalls`;
    const open = { name: 'open-all', network: 'global/networks/default', targetTags: ['web'], sourceRanges: ['0.0.0.0/0'], allowed: [{ IPProtocol: 'tcp', ports: ['0-65535'] }] };
    const tries: [string, () => Promise<unknown>][] = [
      ['compute.firewalls.create', () => p.clients.post(base, open)],
      ['compute.firewalls.update', () => p.clients.patch(`${base}/${name}`, { allowed: [{ IPProtocol: 'tcp', ports: ['22', '0-65535'] }] })],
      ['compute.firewalls.delete', () => p.clients.delete(`${base}/${name}`)],
    ];
    for (const [permission, call] of tries) {
      const [status, message] = await answer(call());
      assert.equal(status, 403, permission);
      assert.match(String(message), new RegExp(`Required '${permission.replace(/\./g, '\\.')}' permission`), permission);
    }
    assert.deepEqual(rules(), [firewallName(ctl.uid), name].sort());
    assert.deepEqual(rule.allowed, [{ IPProtocol: 'tcp', ports: ['22'] }]);
  });

  it('a job task asking ports is refused on the VM before anything is made, saying why and how to fix it', async () => {
    const ctl = await launchController();
    const p = vmProvider(ctl);
    const job = runRequest({ zone: ZONE });
    await assert.rejects(p.runInstances({ ...job, ports: [{ from: 8080, to: 8080 }] }),
      (e: Error) => /cannot open ports/.test(e.message) && /may not change firewall rules/.test(e.message) && /normal cluster/.test(String((e as { hint?: string }).hint)));
    assert.deepEqual(instancesOf(job.uid), []);
    await assert.rejects(p.openPorts(job, [{ from: 8080, to: 8080 }]), /cannot open ports/);
    assert.deepEqual(rules(), [firewallName(ctl.uid), jobsFirewallName(ctl.uid)].sort());
  });

  it('the controller\'s down deletes the jobs rule and proves it gone (GET → 404), naming it in the notes', async () => {
    const ctl = await launchController();
    const name = jobsFirewallName(ctl.uid);
    const rulePath = `/compute/v1/projects/${PROJECT}/global/firewalls/${name}`;
    const readsBefore = bed.fake.reads.filter((r) => r.split('?')[0] === rulePath).length;
    const r = await down(ctx, ctl.name);
    assert.ok(r.cleaned, r.notes.join('\n'));
    assert.ok(r.notes.includes(`deleted firewall rule ${name} (proof: firewalls.get answers 404)`), r.notes.join('\n'));
    assert.deepEqual(rules(), []);
    assert.ok(bed.fake.model.calls.some((c) => c.method === 'DELETE' && c.path === rulePath), 'deleted');
    assert.ok(bed.fake.reads.filter((x) => x.split('?')[0] === rulePath).length >= readsBefore + 2, 'looked before and after the delete');
  });

  it('a controller an older Skydeck made (firewall writes, no jobs rule): a job launch is refused naming the fix; its relaunch takes the rights away and makes the rule', async () => {
    const ctl = await launchController();
    const name = jobsFirewallName(ctl.uid);
    bed.fake.model.firewalls.delete(name);
    bed.fake.model.iam.roles.get(ROLE)!.includedPermissions.push(...WRITES, 'compute.globalOperations.get');
    const job = runRequest({ zone: ZONE });
    await assert.rejects(vmProvider(ctl).runInstances(job), (e: Error) => e.message.includes(`firewall rule ${name}`) && /missing/.test(e.message));
    assert.deepEqual(instancesOf(job.uid), []);
    assert.ok(!rules().includes(firewallName(job.uid)), 'it made no rule of its own either');

    const p = ctx.providers!.get('gcp')!;
    await p.stopInstances({ uid: ctl.uid });
    await p.waitInstances({ uid: ctl.uid }, 'stopped', 5000);
    await ctx.store.write((db) => putCluster(db, { ...ctl, status: 'STOPPED' }));
    const again = await launchController();
    assert.equal(again.uid, ctl.uid, 'started, not a new VM');
    assert.deepEqual([...bed.fake.model.iam.roles.get(ROLE)!.includedPermissions].sort(), [...CONTROLLER_PERMISSIONS].sort());
    assert.ok(rules().includes(name));
    const vm = vmProvider(again);
    await vm.runInstances(job);
    await vm.waitInstances(job, 'running', 5000);
    assert.deepEqual(jobVmTargets(job.uid), [[], [{ email: jobsEmail(ctl.uid), scopes: [] }]]);
  });

  it('a controller whose jobs rule targets a network tag (an older Skydeck\'s): a job launch is refused naming the fix; its relaunch replaces the rule whole', async () => {
    const ctl = await launchController();
    const name = jobsFirewallName(ctl.uid);
    const older: Json = { ...bed.fake.model.firewalls.get(name)!, description: `Skydeck managed-jobs controller ${ctl.uid}: SSH to its job clusters`, targetTags: [name] };
    delete older.targetServiceAccounts;
    bed.fake.model.firewalls.set(name, older);
    const job = runRequest({ zone: ZONE });
    await assert.rejects(vmProvider(ctl).runInstances(job), (e: Error & { hint?: string }) => e.message.includes(`firewall rule ${name}`)
      && e.message.includes(`targets network tag(s) ${name}, not its jobs account ${jobsEmail(ctl.uid)}`) && /skydeck stop/.test(String(e.hint)));
    assert.deepEqual(instancesOf(job.uid), []);

    const p = ctx.providers!.get('gcp')!;
    await p.stopInstances({ uid: ctl.uid });
    await p.waitInstances({ uid: ctl.uid }, 'stopped', 5000);
    await ctx.store.write((db) => putCluster(db, { ...ctl, status: 'STOPPED' }));
    const again = await launchController();
    assert.equal(again.uid, ctl.uid, 'started, not a new VM');
    const now = bed.fake.model.firewalls.get(name)!;
    assert.deepEqual([now.targetTags, now.targetServiceAccounts, now.id], [undefined, [jobsEmail(ctl.uid)], older.id], 'replaced in place (firewalls.update)');
    assert.ok(bed.fake.model.calls.some((c) => c.method === 'PUT' && c.path.endsWith(`/global/firewalls/${name}`)));
    const vm = vmProvider(again);
    await vm.runInstances(job);
    await vm.waitInstances(job, 'running', 5000);
    assert.deepEqual(jobVmTargets(job.uid), [[], [{ email: jobsEmail(ctl.uid), scopes: [] }]]);
  });

  it('a 409 at the rule\'s insert (another launch of the uid made it meanwhile) is no failure, and a failed launch leaves a rule its call did not make', async () => {
    const p = ctx.providers!.get('gcp')! as ReturnType<GcpBed['provider']>;
    const req = runRequest({ zone: ZONE, placement: { cloud: 'gcp', region: REGION, zone: ZONE, instanceType: 'e2-small', useSpot: false, jobsController: true } });
    const name = jobsFirewallName(req.uid);
    // The other launch's rule, made between this launch's look (a 404) and its insert (then a 409).
    const other = async () => {
      await ensureJobsFirewall(p.clients, { project: PROJECT, pollMs: 10, timeoutMs: 10_000 }, 'default',
        { uid: req.uid, clusterName: req.clusterName, workspaceId: req.workspaceId, jobsAccount: jobsEmail(req.uid) }, () => {});
      bed.fake.failNext('GET', new RegExp(`/global/firewalls/${name}$`), notFound(`projects/${PROJECT}/global/firewalls/${name}`), 1);
    };
    await other();
    const made = bed.fake.model.firewalls.get(name)!;
    bed.fake.model.iam.callerLacks.add('iam.serviceAccounts.actAs'); // this launch's VM insert fails after the rule step
    await assert.rejects(p.runInstances(req), /iam\.serviceAccounts\.actAs/);
    assert.ok(bed.fake.model.calls.some((c) => c.method === 'POST' && c.path.endsWith('/global/firewalls')), 'its insert was tried (and answered 409)');
    assert.equal(bed.fake.model.firewalls.get(name), made, 'the other launch\'s rule is left as it was');
    assert.ok(!bed.fake.model.calls.some((c) => c.method === 'DELETE' && c.path.endsWith(`/global/firewalls/${name}`)), 'no delete was even tried');

    // With the VM allowed: the 409 is taken as "it exists", the launch goes on.
    bed.fake.model.iam.callerLacks.delete('iam.serviceAccounts.actAs');
    bed.fake.failNext('GET', new RegExp(`/global/firewalls/${name}$`), notFound(`projects/${PROJECT}/global/firewalls/${name}`), 1);
    await p.runInstances(req);
    await p.waitInstances(req, 'running', 5000);
    assert.equal(bed.fake.model.firewalls.get(name), made);
  });

  it('a failed launch whose rule delete keeps failing: the rule is said to be left, the sweep names it, and --delete-identity deletes it with proof', async () => {
    const log: string[] = [];
    const p = bed.provider({ zones: { [REGION]: [ZONE] }, log: (m) => log.push(m) });
    ctx = await bedOpsContext(bed, p, progress);
    bed.fake.model.iam.callerLacks.add('iam.serviceAccounts.actAs');
    bed.fake.failNext('DELETE', /\/global\/firewalls\/skydeck-.*-jobs$/, undefined, 10); // 503 on every try of the undo
    await assert.rejects(launchController());
    const [name] = rules().filter((n) => n.endsWith('-jobs'));
    assert.ok(name, 'the rule is left');
    assert.ok(log.some((m) => m.includes(`the firewall rule ${name} is left after the failed launch`) && m.includes('skydeck leaks')), log.join('\n'));
    assert.equal(bed.fake.model.calls.filter((c) => c.method === 'DELETE' && c.path.endsWith(name)).length, 0, 'the fault answers before the fake records a call');
    bed.fake.model.httpFaults.length = 0;
    bed.fake.model.iam.callerLacks.delete('iam.serviceAccounts.actAs');

    const sweep = await findLeakedInstances(ctx, ['gcp']);
    assert.deepEqual(sweep.errors, []);
    const stray = (sweep.strayIdentities ?? []).filter((x) => x.kind === 'firewall rule');
    assert.deepEqual(stray.map((x) => [x.name, x.cluster, x.workspace]), [[name, controllerClusterName(PLACE), sweep.workspaceId]]);
    const del = await deleteStrayIdentity(ctx, stray[0]);
    assert.ok(del.deleted, del.message);
    assert.ok(del.message.includes(`deleted firewall rule ${name} (proof: firewalls.get answers 404)`), del.message);
    assert.deepEqual(rules(), []);
  });

  it('the sweep names a jobs rule by its name-bound uid only: a rule merely named like one, or whose uid does not give its name, is not Skydeck\'s', async () => {
    const put = (name: string, description: string) => bed.fake.model.firewalls.set(name, { name, description, targetTags: ['x'] });
    const uid = '0b0e9f8e-1111-4222-8333-444455556666';
    put(jobsFirewallName(uid), `Skydeck managed-jobs controller ${uid}: SSH to its job clusters`); // an older Skydeck's
    put('skydeck-someone-else-jobs', 'made by hand');
    put(jobsFirewallName('9d0e9f8e-1111-4222-8333-444455556666'), `Skydeck managed-jobs controller ${uid}: SSH to its job clusters`);
    const sweep = await findLeakedInstances(ctx, ['gcp']);
    assert.deepEqual((sweep.strayIdentities ?? []).map((x) => [x.kind, x.name, x.uid, x.cluster]), [['firewall rule', jobsFirewallName(uid), uid, '?']]);
  });

  it('a stray controller account (no row, no instance) takes its jobs rule with it, with proof', async () => {
    const row = await launchController('skydeck-jobs-orphan');
    const p = ctx.providers!.get('gcp')!;
    await p.terminateInstances({ uid: row.uid });
    await p.waitInstances({ uid: row.uid }, 'terminated', 5000);
    await ctx.store.write((db) => deleteClusterAfterProof(db, row.uid));
    assert.ok(rules().includes(jobsFirewallName(row.uid)), 'the rule outlives the instances');
    const sweep = await findLeakedInstances(ctx, ['gcp']);
    const stray = (sweep.strayIdentities ?? []).filter((s) => s.uid === row.uid);
    const del = await deleteStrayIdentity(ctx, stray[0]);
    assert.ok(del.deleted, del.message);
    assert.ok(del.message.includes(`deleted firewall rule ${jobsFirewallName(row.uid)} (proof: firewalls.get answers 404)`), del.message);
    assert.deepEqual(rules(), []);
  });
});
