// The Azure controller's job clusters all go into one resource group made for that controller
// (skydeck-<uid>-jobs, made by this machine before the controller VM), and its compute and
// network role is assigned at that group alone. The ARM fake evaluates each assignment's scope,
// so a request of the controller's identity on another group's VM, NIC, disk, NSG or VNet gets
// ARM's 403 AuthorizationFailed. Down deletes the group with proof; a group a crash left is
// found by the sweep and deleted there; a jobs identity read back from the node's environment
// that names another group is refused before any request.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { ClusterRef } from '../../../src/core/clouds/provider';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { getCluster } from '../../../src/core/state';
import { down, stop, terminateLeakedInstance, type OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { findLeakedInstances } from '../../../src/core/ops/leaks';
import { controllerTaskText } from '../../../src/core/managed/remote/controllerCluster';
import type { ControllerPlace } from '../../../src/core/managed';
import { groupName } from '../../../src/core/clouds/azure';
import { AzureClients } from '../../../src/core/clouds/azure/clients';
import { BUCKET_IDENTITY, jobsIdentityId } from '../../../src/core/clouds/azure/bucketIdentity';
import { CONTROLLER_ACTIONS, CONTROLLER_ROLE_NAME, CONTROLLER_SUBSCRIPTION_ACTIONS, CONTROLLER_SUBSCRIPTION_ROLE_NAME } from '../../../src/core/clouds/azure/controllerRole';
import { assignmentId } from '../../../src/core/clouds/azure/identity';
import { JOBS_IDENTITY_ENV } from '../../../src/core/clouds/azure/options';
import { task } from '../../unit/task/helpers';
import { REGION, runRequest, startAzureBed, type AzureBed, bedOpsContext } from './helpers';

const PLACE: ControllerPlace = { kind: 'cloud', cloud: 'azure', region: REGION };
const jobsGroup = (uid: string) => `skydeck-${uid}-jobs`;

describe('azure: a managed-jobs controller\'s job clusters in its one resource group, its role on that group only (ARM fake)', function () {
  this.timeout(60_000);
  let bed: AzureBed;
  let ctx: OpsContext;
  let provider: ReturnType<AzureBed['provider']>;

  const m = () => bed.fake.model;
  const sub = () => m().subscription;
  const rgId = (g: string) => `/subscriptions/${sub()}/resourceGroups/${g}`;
  const principalOf = (uid: string) => m().get(`${rgId(groupName(uid))}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${BUCKET_IDENTITY}`)!.properties.principalId as string;
  const assignmentsOf = (principal: string) => [...m().resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleAssignments' && r.properties.principalId === principal);
  const roleNamed = (name: string) => [...m().resources.values()].find((r) => r.type === 'Microsoft.Authorization/roleDefinitions' && r.properties.roleName === name)!;
  const token = (principal: string) => ({ getToken: async () => ({ token: `fake-mi-token:${principal}`, expiresOnTimestamp: Date.now() + 3600_000 }) });
  const launchController = (name: string, existing?: Parameters<typeof launchOnProvider>[3]['existing']) => launchOnProvider(ctx, name, task(controllerTaskText(PLACE, 'x64')), {
    cloud: 'azure', autostop: { minutes: 10, down: false }, jobsController: true, ...(existing ? { existing } : {}),
  });
  const asControllerOf = (uid: string) => bed.provider({ credential: token(principalOf(uid)), env: provider.controllerNodeEnv({ uid, account: sub() }), catalogDir: path.join(bed.dir, `cat-${uid}`) });
  const gone = async (id: string) => {
    for (let i = 0; i < 200 && m().get(id); i++) await new Promise((r) => setTimeout(r, 25));
    return !m().get(id);
  };

  before(async function () {
    bed = await startAzureBed(this);
    provider = bed.provider();
    ctx = await bedOpsContext(bed, provider);
  });
  after(async () => {
    ctx?.store.close();
    await bed?.close();
  });

  it('the group is made with the controller; the compute/network role is assigned there alone; the controller\'s identity gets 403 AuthorizationFailed on any other group\'s VM, NIC, disk, NSG and VNet', async () => {
    const row = await launchController('ctl-rg');
    const g = jobsGroup(row.uid);
    const group = m().get(rgId(g))!;
    assert.ok(group, 'made by this machine before the controller VM');
    assert.equal(group.tags[TAG_UID], row.uid, 'tagged as the controller');
    const principal = principalOf(row.uid);
    const role = roleNamed(CONTROLLER_ROLE_NAME);
    const subRole = roleNamed(CONTROLLER_SUBSCRIPTION_ROLE_NAME);
    assert.deepEqual(role.properties.permissions[0].actions, [...CONTROLLER_ACTIONS]);
    assert.deepEqual(subRole.properties.permissions[0].actions, [...CONTROLLER_SUBSCRIPTION_ACTIONS]);
    const mine = assignmentsOf(principal);
    const onRole = mine.filter((a) => a.properties.roleDefinitionId === role.id);
    assert.deepEqual(onRole.map((a) => a.properties.scope), [rgId(g)], 'the compute/network role at the jobs group, nowhere else');
    const [onSub, ...more] = mine.filter((a) => a.properties.scope === `/subscriptions/${sub()}`);
    assert.equal(more.length, 0);
    assert.deepEqual([onSub.properties.roleDefinitionId, onSub.properties.condition], [subRole.id, null]);
    for (const a of subRole.properties.permissions[0].actions as string[]) assert.match(a, /\/read$/, `${a}: only reads on the subscription`);

    // A cluster launched from this machine (its own group), then the controller's job cluster (the jobs group).
    const other = runRequest({ clusterName: 'laptop-vm' });
    await provider.runInstances(other);
    const asController = asControllerOf(row.uid);
    const job = runRequest({ clusterName: 'job-rg' });
    await asController.runInstances(job);
    await asController.waitInstances({ uid: job.uid, account: sub() }, 'running', 10_000);
    assert.equal(m().under(`${rgId(g)}/providers/Microsoft.Compute/virtualMachines/`).length, 1, 'the job cluster\'s VM is in the jobs group');
    assert.equal(m().get(rgId(groupName(job.uid))), undefined, 'no group of its own');

    const c = new AzureClients({ ...bed.options(), credential: token(principal) });
    const og = groupName(other.uid);
    const [vm] = m().under(`${rgId(og)}/providers/Microsoft.Compute/virtualMachines/`);
    const [nic] = m().under(`${rgId(og)}/providers/Microsoft.Network/networkInterfaces/`);
    const [disk] = m().under(`${rgId(og)}/providers/Microsoft.Compute/disks/`);
    const forbidden = (what: string, p: Promise<unknown>) => assert.rejects(p, (e: { statusCode?: number; code?: string; message: string }) => {
      assert.deepEqual([e.statusCode, e.code], [403, 'AuthorizationFailed'], `${what}: ${e.message}`);
      return true;
    }, what);
    const lro = { updateIntervalInMs: 10 };
    await forbidden('deallocate another group\'s VM', c.compute.virtualMachines.beginDeallocateAndWait(og, vm.name, lro));
    await forbidden('delete another group\'s VM', c.compute.virtualMachines.beginDeleteAndWait(og, vm.name, lro));
    await forbidden('read another group\'s VM', c.compute.virtualMachines.get(og, vm.name));
    await forbidden('delete another group\'s NIC', c.network.networkInterfaces.beginDeleteAndWait(og, nic.name, lro));
    await forbidden('delete another group\'s disk', c.compute.disks.beginDeleteAndWait(og, disk.name, lro));
    await forbidden('open a port on another group\'s NSG', c.network.securityRules.beginCreateOrUpdateAndWait(og, 'skydeck-nsg', 'rogue', {
      protocol: 'Tcp', sourcePortRange: '*', destinationPortRange: '3389', sourceAddressPrefix: '*', destinationAddressPrefix: '*', access: 'Allow', priority: 900, direction: 'Inbound',
    }, lro));
    await forbidden('delete another group\'s VNet', c.network.virtualNetworks.beginDeleteAndWait(og, 'skydeck-vnet', lro));
    await forbidden('make a group', c.resources.resourceGroups.createOrUpdate('rogue-rg', { location: REGION }));
    await forbidden('delete its own jobs group', c.resources.resourceGroups.beginDeleteAndWait(g, lro));
    await forbidden('list the subscription\'s VMs', (async () => {
      for await (const _ of c.compute.virtualMachines.listAll()) break;
    })());
    assert.equal(m().get(vm.id)!.properties.provisioningState, 'Succeeded', 'untouched');
    // Its own listing (the jobs poll) sees its jobs group, and only what it launched.
    const listing = await asController.listTagged();
    assert.deepEqual([listing.unlisted, listing.instances.map((i) => i.tags[TAG_UID])], [[], [job.uid]]);

    await asController.terminateInstances({ uid: job.uid, account: sub() });
    await asController.waitInstances({ uid: job.uid, account: sub() }, 'terminated', 10_000);
    await provider.terminateInstances({ uid: other.uid });
    const d = await down(ctx, 'ctl-rg');
    assert.ok(d.cleaned, d.notes.join('\n'));
  });

  it('two job clusters share the group, each with its own VNet and NSG; ending one leaves the other running and takes its own network; down deletes the group with proof, naming the job clusters it held', async () => {
    const row = await launchController('ctl-two');
    const g = jobsGroup(row.uid);
    const asController = asControllerOf(row.uid);
    const [a, b] = [runRequest({ clusterName: 'job-a', numNodes: 2 }), runRequest({ clusterName: 'job-b' })];
    const ref = (r: { uid: string }): ClusterRef => ({ uid: r.uid, account: sub() });
    await asController.runInstances(a);
    await asController.runInstances(b);
    await asController.openPorts(ref(b), [{ from: 8080, to: 8080 }]);
    await asController.waitInstances(ref(a), 'running', 10_000);
    assert.equal((await asController.queryInstances(ref(a))).length, 2);
    assert.equal((await asController.queryInstances(ref(b))).length, 1);
    const nsgA = m().get(`${rgId(g)}/providers/Microsoft.Network/networkSecurityGroups/skydeck-nsg-${a.uid}`)!;
    assert.ok(!nsgA.properties.securityRules.some((r: { destinationPortRange: string }) => r.destinationPortRange === '8080'), 'b\'s port is on b\'s NSG only');
    assert.equal((await asController.clusterInfo(ref(b))).workers.length, 0);

    await asController.stopInstances(ref(a));
    await asController.waitInstances(ref(a), 'stopped', 10_000);
    assert.ok((await asController.queryInstances(ref(b))).every((i) => i.status === 'running'), 'stopping a stops nothing of b');
    await asController.terminateInstances(ref(a));
    await asController.waitInstances(ref(a), 'terminated', 10_000);
    assert.ok((await asController.queryInstances(ref(b))).every((i) => i.status === 'running'), 'ending a ends nothing of b');
    assert.equal(m().get(`${rgId(g)}/providers/Microsoft.Network/virtualNetworks/skydeck-vnet-${a.uid}`), undefined, 'a\'s VNet went with it');
    assert.equal(m().get(nsgA.id), undefined, 'a\'s NSG too');
    assert.ok(m().get(`${rgId(g)}/providers/Microsoft.Network/virtualNetworks/skydeck-vnet-${b.uid}`));

    // Down of the controller (b's VM left, as after a crash): the group goes, proven by a 404.
    const d = await down(ctx, 'ctl-two');
    assert.ok(d.cleaned, d.notes.join('\n'));
    assert.ok(d.notes.includes(`deleted resource group ${g} (the job clusters' group of controller ${row.uid}; it held VMs of ${b.uid}) (proof: GET ${rgId(g)} answers 404)`), d.notes.join('\n'));
    assert.equal(m().get(rgId(g)), undefined);
  });

  it('a job cluster\'s VNet still in use when it ends (a NIC in its subnet) is kept without failing the terminate, and ended by the next one', async () => {
    const row = await launchController('ctl-inuse');
    const g = jobsGroup(row.uid);
    const asController = asControllerOf(row.uid);
    const job = runRequest({ clusterName: 'job-inuse' });
    const ref: ClusterRef = { uid: job.uid, account: sub() };
    await asController.runInstances(job);
    const vnet = `${rgId(g)}/providers/Microsoft.Network/virtualNetworks/skydeck-vnet-${job.uid}`;
    const nsg = `${rgId(g)}/providers/Microsoft.Network/networkSecurityGroups/skydeck-nsg-${job.uid}`;
    // A NIC in its subnet that is no part of its VMs (made by hand there).
    const c = new AzureClients({ ...bed.options() });
    const lro = { updateIntervalInMs: 10 };
    await c.network.networkInterfaces.beginCreateOrUpdateAndWait(g, 'by-hand', { location: REGION, ipConfigurations: [{ name: 'ip', subnet: { id: `${vnet}/subnets/default` } }] }, lro);
    await asController.terminateInstances(ref);
    await asController.waitInstances(ref, 'terminated', 10_000);
    assert.ok(m().get(vnet) && m().get(nsg), 'kept while in use');
    await c.network.networkInterfaces.beginDeleteAndWait(g, 'by-hand', lro);
    await asController.terminateInstances(ref);
    assert.equal(m().get(vnet), undefined);
    assert.equal(m().get(nsg), undefined);
    const d = await down(ctx, 'ctl-inuse');
    assert.ok(d.cleaned, d.notes.join('\n'));
  });

  it('a controller of an older version (the role on the whole subscription) loses that assignment when this machine starts it again', async () => {
    const row = await launchController('ctl-older');
    const principal = principalOf(row.uid);
    const role = roleNamed(CONTROLLER_ROLE_NAME);
    const sc = `/subscriptions/${sub()}`;
    const wide = assignmentId(sc, principal, role.name);
    m().put({ id: wide, name: wide.split('/').pop(), type: 'Microsoft.Authorization/roleAssignments', properties: { roleDefinitionId: role.id, principalId: principal, principalType: 'ServicePrincipal', scope: sc } });
    await stop(ctx, 'ctl-older');
    await launchController('ctl-older', (await ctx.store.read((db) => getCluster(db, 'ctl-older')))!);
    assert.equal(m().get(wide), undefined, 'the subscription-wide assignment is deleted');
    assert.deepEqual(assignmentsOf(principal).filter((a) => a.properties.roleDefinitionId === role.id).map((a) => a.properties.scope), [rgId(jobsGroup(row.uid))]);
    const d = await down(ctx, 'ctl-older');
    assert.ok(d.cleaned, d.notes.join('\n'));
  });

  it('a jobs group left by a crash (no row, no controller VM), and a job cluster\'s VM in it, are found by the sweep and ended there with proof', async () => {
    const row = await launchController('ctl-crash');
    const g = jobsGroup(row.uid);
    const job = runRequest({ clusterName: 'job-left' });
    await asControllerOf(row.uid).runInstances(job);
    const [vm] = m().under(`${rgId(g)}/providers/Microsoft.Compute/virtualMachines/`);
    // The row lost and the controller's own group gone behind Skydeck's back: only the jobs group is left.
    await ctx.store.write((db) => db.run('DELETE FROM clusters WHERE name = ?', ['ctl-crash']));
    m().deleteGroup(groupName(row.uid));
    assert.ok(await gone(rgId(groupName(row.uid))));
    // The job cluster's VM first (named with its group: its uid's own group is not where it is).
    let sweep = await findLeakedInstances(ctx, ['azure']);
    const jobLeak = [...sweep.thisWorkspace, ...sweep.otherWorkspaces].filter((l) => l.uid === job.uid);
    assert.deepEqual(jobLeak.map((l) => l.instance.id), [`${g}/${vm.name}`]);
    assert.equal(sweep.thisWorkspace.filter((l) => l.uid === row.uid).length, 0, 'a group holding a VM is not an empty group');
    // An id naming a group that is no jobs group, or a VM of another uid, ends nothing there.
    await assert.rejects(provider.terminateInstances({ uid: row.uid }, [`${g}/${vm.name}`]), /is not a VM of cluster/);
    await provider.terminateInstances({ uid: job.uid }, [`user-rg/${vm.name}`]);
    assert.equal(m().get(vm.id)!.properties.provisioningState, 'Succeeded');
    const t = await terminateLeakedInstance(ctx, jobLeak[0]);
    assert.ok(t.confirmed, t.message);
    assert.ok(await gone(vm.id));
    sweep = await findLeakedInstances(ctx, ['azure']);
    const leaked = sweep.thisWorkspace.filter((l) => l.uid === row.uid);
    assert.deepEqual(leaked.map((l) => l.instance.id), [g]);
    const r = await terminateLeakedInstance(ctx, leaked[0]);
    assert.ok(r.confirmed, r.message);
    assert.ok(await gone(rgId(g)));
  });

  it('a job cluster with autostop is refused before anything is made; a jobs identity from the node\'s environment naming any other group is refused before any request', async () => {
    const row = await launchController('ctl-refuse');
    const asController = asControllerOf(row.uid);
    const job = runRequest({ clusterName: 'job-autostop' });
    bed.fake.model.calls.length = 0;
    await assert.rejects(asController.runInstances({ ...job, autostop: { down: false } }), (e: Error & { kind?: string }) => e.kind === 'config' && /cannot have autostop/.test(e.message));
    assert.deepEqual(m().calls, []);
    for (const hostile of [
      `/subscriptions/${sub()}/resourceGroups/user-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/skydeck-jobs`,
      `/subscriptions/${sub()}/resourceGroups/skydeck-../../x/providers/Microsoft.ManagedIdentity/userAssignedIdentities/skydeck-jobs`,
      `${jobsIdentityId(sub(), row.uid)}/../../../../user-rg`,
    ]) {
      const p = bed.provider({ credential: token(principalOf(row.uid)), env: { AZURE_SUBSCRIPTION_ID: sub(), [JOBS_IDENTITY_ENV]: hostile } });
      bed.fake.requests.length = 0;
      bed.fake.recording = true;
      try {
        await assert.rejects(p.runInstances(job), (e: Error & { kind?: string }) => e.kind === 'config' && e.message.includes('is not a Skydeck controller\'s jobs identity'), hostile);
        await assert.rejects(p.queryInstances({ uid: job.uid }), (e: Error & { kind?: string }) => e.kind === 'config', hostile);
        await assert.rejects(p.terminateInstances({ uid: job.uid }), (e: Error & { kind?: string }) => e.kind === 'config', hostile);
      } finally {
        bed.fake.recording = false;
      }
      assert.deepEqual(bed.fake.requests, [], hostile);
    }
    const d = await down(ctx, 'ctl-refuse');
    assert.ok(d.cleaned, d.notes.join('\n'));
  });
});
