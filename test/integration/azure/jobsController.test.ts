// The managed-jobs controller on an Azure VM (jobs.controller: azure/eastus), on the ARM fake.
// The controller cluster is launched through launchOnProvider with jobsController (what
// ensureControllerCluster does; bootstrap is a no-op: the fake's VMs are not machines): its VM
// carries the cluster's user-assigned identity, which holds the custom role "Skydeck jobs
// controller" (exactly CONTROLLER_ACTIONS) on its jobs group alone, and "Skydeck jobs lookups and
// grants" (CONTROLLER_SUBSCRIPTION_ACTIONS) on the subscription, under an ABAC condition. Then,
// signed in AS that identity (the fake enforces the role, its actions and its condition), the
// provider launches, stops, starts, lists and ends a job cluster with Blob mounts in that group,
// with every request recorded and its actions checked against the list; what it must not do
// (widen its role, assign Contributor, delete its own assignment) is refused. Down deletes both
// assignments and the identity with proof; an orphan is listed by the sweep;
// a widened role is set back; the node's credential chain gets the identity's token from IMDS.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { type BucketAccess, type ClusterRef } from '../../../src/core/clouds/provider';
import { getCluster, putCluster } from '../../../src/core/state';
import { deleteStrayIdentity, down, stop, terminateLeakedInstance, type OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { findLeakedInstances } from '../../../src/core/ops/leaks';
import { refOf } from '../../../src/core/provision/handle';
import { controllerClusterName, controllerTaskText } from '../../../src/core/managed/remote/controllerCluster';
import type { ControllerPlace } from '../../../src/core/managed';
import { groupName } from '../../../src/core/clouds/azure';
import { AzureClients, MI_RESOURCE_ENV } from '../../../src/core/clouds/azure/clients';
import { BUCKET_IDENTITY, JOBS_IDENTITY, jobsIdentityId } from '../../../src/core/clouds/azure/bucketIdentity';
import { JOBS_IDENTITY_ENV } from '../../../src/core/clouds/azure/options';
import {
  CONTROLLER_ACTIONS, CONTROLLER_ROLE_NAME, CONTROLLER_SUBSCRIPTION_ACTIONS, CONTROLLER_SUBSCRIPTION_ROLE_NAME, JOBS_IDENTITY_ACTIONS, JOBS_IDENTITY_ROLE_NAME, ROLE_DEFINITIONS_API,
} from '../../../src/core/clouds/azure/controllerRole';
import { ROLE_CONTRIBUTOR, ROLE_VM_CONTRIBUTOR, roleDefinitionId } from '../../../src/core/clouds/azure/identity';
import { AUTOSTOP_ACTIONS, AUTOSTOP_ROLE_NAME, autostopRoleGuid } from '../../../src/core/clouds/azure/autostopRole';
import { ROLE_BLOB_CONTRIBUTOR } from '../../../src/core/clouds/azure/bucketGrants';
import { covers } from '../../support/fakes/azureFake/actions';
import { ImdsFake } from '../../support/fakes/azureFake/imds';
import { task } from '../../unit/task/helpers';
import { REGION, runRequest, startAzureBed, type AzureBed, bedOpsContext } from './helpers';

const PLACE: ControllerPlace = { kind: 'cloud', cloud: 'azure', region: REGION };
const DATA_RG = 'data-rg';

describe('azure: the managed-jobs controller VM and its scoped identity (ARM fake)', function () {
  this.timeout(60_000);
  let bed: AzureBed;
  let ctx: OpsContext;
  let provider: ReturnType<AzureBed['provider']>;
  const progress: string[] = [];
  const warnings: string[] = [];

  const m = () => bed.fake.model;
  const sub = () => m().subscription;
  const groupId = (uid: string) => `/subscriptions/${sub()}/resourceGroups/${groupName(uid)}`;
  const jobsGroupId = (ctlUid: string) => `/subscriptions/${sub()}/resourceGroups/skydeck-${ctlUid}-jobs`;
  const identityOf = (uid: string) => m().get(`${groupId(uid)}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${BUCKET_IDENTITY}`);
  const assignments = () => [...m().resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleAssignments');
  const defs = () => [...m().resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleDefinitions');
  const roles = () => defs().filter((d) => d.properties.roleName.startsWith(CONTROLLER_ROLE_NAME));
  const subRoles = () => defs().filter((d) => d.properties.roleName.startsWith(CONTROLLER_SUBSCRIPTION_ROLE_NAME));
  const autostopRoles = () => defs().filter((d) => d.properties.roleName.startsWith(AUTOSTOP_ROLE_NAME));
  const autostopRoleId = () => `/subscriptions/${sub()}/providers/Microsoft.Authorization/roleDefinitions/${autostopRoleGuid(sub())}`;
  const subAssignmentsOf = (principal: string) => assignments().filter((a) => a.properties.scope === `/subscriptions/${sub()}` && a.properties.principalId === principal);
  const blob = (bucket: string): BucketAccess => ({ store: 'azure', account: 'jobdata', bucket });
  const groupGone = async (uid: string) => {
    for (let i = 0; i < 200 && m().get(groupId(uid)); i++) await new Promise((r) => setTimeout(r, 25));
    return !m().get(groupId(uid));
  };
  const launchController = (name: string) => launchOnProvider(ctx, name, task(controllerTaskText(PLACE, 'x64')), {
    cloud: 'azure', autostop: { minutes: 10, down: false }, jobsController: true,
  });

  before(async function () {
    bed = await startAzureBed(this);
    const acct = `/subscriptions/${sub()}/resourceGroups/${DATA_RG}/providers/Microsoft.Storage/storageAccounts/jobdata`;
    m().put({ id: m().groupId(DATA_RG), name: DATA_RG, type: 'Microsoft.Resources/resourceGroups', location: REGION, tags: {}, properties: { provisioningState: 'Succeeded' } });
    m().put({ id: acct, name: 'jobdata', type: 'Microsoft.Storage/storageAccounts', location: REGION, tags: {}, kind: 'StorageV2', properties: { provisioningState: 'Succeeded' } });
    provider = bed.provider();
    ctx = await bedOpsContext(bed, provider, { progress: (p) => progress.push(p), warn: (w) => warnings.push(w) });
  });
  after(async () => {
    ctx?.store.close();
    await bed?.close();
  });

  it('launches a Standard_B2s VM with the user-assigned identity, the role of exactly the list on its jobs group and the lookups role on the subscription under the condition; down deletes them with proof', async () => {
    const name = controllerClusterName(PLACE);
    const row = await launchController(name);
    const [vm] = m().under(`${groupId(row.uid)}/providers/Microsoft.Compute/virtualMachines/`);
    assert.equal(vm.properties.hardwareProfile.vmSize, 'Standard_B2s');
    const mi = identityOf(row.uid)!;
    assert.ok(mi, 'the cluster\'s user-assigned identity exists although no Blob container is mounted');
    assert.equal(vm.identity.type, 'SystemAssigned, UserAssigned', 'system-assigned: autostop; user-assigned: the controller role');
    assert.deepEqual(Object.keys(vm.identity.userAssignedIdentities), [mi.id]);

    // One controller role of the subscription: exactly the list, assignable at the subscription only;
    // and the autostop role its job clusters' heads get, made here by this machine's credentials.
    const [def, ...moreDefs] = roles();
    assert.equal(moreDefs.length, 0);
    const jobsDef = defs().find((d) => d.properties.roleName === JOBS_IDENTITY_ROLE_NAME)!;
    const [subDef, ...moreSubDefs] = subRoles();
    assert.equal(moreSubDefs.length, 0);
    assert.deepEqual(defs().map((d) => d.id).sort(), [def.id, autostopRoleId(), jobsDef.id, subDef.id].sort());
    assert.deepEqual(subDef.properties.permissions, [{ actions: [...CONTROLLER_SUBSCRIPTION_ACTIONS], notActions: [], dataActions: [], notDataActions: [] }]);
    assert.deepEqual(autostopRoles()[0].properties.permissions, [{ actions: [...AUTOSTOP_ACTIONS], notActions: [], dataActions: [], notDataActions: [] }]);
    assert.deepEqual(autostopRoles()[0].properties.assignableScopes, [`/subscriptions/${sub()}`]);
    assert.equal(def.properties.roleName, CONTROLLER_ROLE_NAME);
    assert.deepEqual(def.properties.permissions, [{ actions: [...CONTROLLER_ACTIONS], notActions: [], dataActions: [], notDataActions: [] }]);
    assert.deepEqual(def.properties.assignableScopes, [`/subscriptions/${sub()}`]);
    // The controller role at its jobs group alone; the lookups role at the subscription, with the condition.
    const [ra, ...moreRa] = subAssignmentsOf(mi.properties.principalId);
    assert.equal(moreRa.length, 0);
    assert.equal(ra.properties.roleDefinitionId, subDef.id);
    assert.equal(ra.properties.condition, null, 'reads only: nothing for a condition to narrow');
    const [groupRa, ...moreGroupRa] = assignments().filter((a) => a.properties.principalId === mi.properties.principalId && a.properties.roleDefinitionId === def.id);
    assert.equal(moreGroupRa.length, 0);
    assert.equal(groupRa.properties.scope, jobsGroupId(row.uid));
    assert.match(groupRa.properties.description, new RegExp(`^Skydeck jobs controller; .*skydeck-cluster-uid=${row.uid}`));
    assert.equal(ra.properties.conditionVersion, null);
    assert.match(ra.properties.description, new RegExp(`^Skydeck jobs controller; .*skydeck-cluster-uid=${row.uid}`));

    // What the node's CLI gets: the subscription and the user-assigned identity to sign in as.
    const jobsId = jobsIdentityId(sub(), row.uid);
    assert.deepEqual(provider.controllerNodeEnv(refOf(row)), { AZURE_SUBSCRIPTION_ID: sub(), [MI_RESOURCE_ENV]: mi.id, [JOBS_IDENTITY_ENV]: jobsId });
    const [jobsRa] = assignments().filter((a) => a.properties.scope === jobsId);

    // With no row, the sweep names the VM and the controller's assignment; with the row back, neither.
    const cur = (await ctx.store.read((db) => getCluster(db, name)))!;
    await ctx.store.write((db) => db.run('DELETE FROM clusters WHERE name = ?', [name]));
    const stray = await findLeakedInstances(ctx, ['azure']);
    assert.deepEqual(stray.thisWorkspace.map((l) => [l.uid, l.instance.id]).sort(), [[row.uid, vm.name], [row.uid, `skydeck-${row.uid}-jobs`]].sort(), 'its VM, and its jobs group');
    assert.deepEqual((stray.strayIdentities ?? []).map((i) => [i.kind, i.name, i.uid]).sort(), [
      ['jobs controller role assignment', ra.id, row.uid], ['jobs controller role assignment', groupRa.id, row.uid], ['jobs identity role assignment', jobsRa.id, row.uid]].sort());
    await ctx.store.write((db) => putCluster(db, cur));
    const owned = await findLeakedInstances(ctx, ['azure']);
    assert.deepEqual([owned.thisWorkspace, owned.strayIdentities ?? []], [[], []]);

    // A job mounting a container: the controller's identity is widened to it (controllerBuckets.ts), the role untouched.
    assert.deepEqual(await provider.grantBuckets(refOf(row), [blob('in')]), { identity: `managed identity ${BUCKET_IDENTITY} of cluster ${row.uid} and ${JOBS_IDENTITY}`, changed: true });
    const [grant] = assignments().filter((a) => a.properties.principalId === mi.properties.principalId && a.properties.roleDefinitionId.endsWith(`/${ROLE_BLOB_CONTRIBUTOR}`));
    assert.match(grant.properties.scope, /storageAccounts\/jobdata\/blobServices\/default\/containers\/in$/);
    assert.deepEqual(roles()[0].properties.permissions[0].actions, [...CONTROLLER_ACTIONS]);

    // Down: the assignments are deleted before the group and proven gone; the identity goes with the group, proven too.
    const d = await down(ctx, name);
    assert.ok(d.cleaned, d.notes.join('\n'));
    assert.ok(d.notes.includes(`deleted Blob role assignment ${grant.id} (proof: GET ${grant.id} answers 404)`), d.notes.join('\n'));
    assert.ok(d.notes.includes(`deleted jobs controller role assignment ${ra.id} (proof: GET ${ra.id} answers 404)`), d.notes.join('\n'));
    assert.ok(d.notes.includes(`deleted jobs controller role assignment ${groupRa.id} (proof: GET ${groupRa.id} answers 404)`), d.notes.join('\n'));
    assert.ok(d.notes.some((n) => n.startsWith(`deleted managed identity ${BUCKET_IDENTITY} of ${groupName(row.uid)} (proof: GET ${mi.id} answers 404`)), d.notes.join('\n'));
    assert.ok(d.notes.some((n) => n.startsWith(`deleted resource group skydeck-${row.uid}-jobs (`)), d.notes.join('\n'));
    assert.equal(m().get(ra.id), undefined);
    assert.equal(m().get(jobsGroupId(row.uid)), undefined);
    assert.equal(identityOf(row.uid), undefined);
    assert.equal(m().get(groupId(row.uid)), undefined);
    assert.equal(roles().length, 1, 'the role itself is the subscription\'s, kept for the next controller');
    assert.deepEqual(warnings, []);
  });

  it('a widened or narrowed role is set back to exactly the list when the controller is started again (its recorded placement keeps jobsController)', async () => {
    const row = await launchController('ctl-widened');
    const [def] = roles();
    const [autostopDef] = autostopRoles();
    for (const edited of [['*'], CONTROLLER_ACTIONS.slice(1)]) {
      await stop(ctx, 'ctl-widened');
      def.properties.permissions = [{ actions: edited, notActions: [], dataActions: [], notDataActions: [] }];
      autostopDef.properties.permissions = [{ actions: [...AUTOSTOP_ACTIONS, 'Microsoft.Compute/virtualMachines/runCommand/action'], notActions: [], dataActions: [], notDataActions: [] }];
      const stopped = (await ctx.store.read((db) => getCluster(db, 'ctl-widened')))!;
      assert.equal(stopped.status, 'STOPPED');
      const started = await launchOnProvider(ctx, 'ctl-widened', task(controllerTaskText(PLACE, 'x64')), {
        cloud: 'azure', autostop: { minutes: 10, down: false }, jobsController: true, existing: stopped,
      });
      assert.equal(started.uid, row.uid, 'the same VM, started');
      assert.equal(roles().length, 1, 'found by name, not made twice');
      assert.equal(roles()[0].id, def.id);
      assert.deepEqual(roles()[0].properties.permissions[0].actions, [...CONTROLLER_ACTIONS]);
      assert.deepEqual(autostopRoles().map((d) => [d.id, d.properties.permissions[0].actions]), [[autostopRoleId(), [...AUTOSTOP_ACTIONS]]], 'the autostop role is set back too, at its one id');
    }
    const d = await down(ctx, 'ctl-widened');
    assert.ok(d.cleaned, d.notes.join('\n'));
  });

  it('in another subscription of the tenant, where the plain role name is taken (names are tenant-wide), the controller gets that subscription\'s own role', async () => {
    const other = '11111111-2222-4333-8444-555555555555';
    const om = bed.fake.addSubscription(other);
    const first = runRequest({ clusterName: 'ctl-sub1', instanceType: 'Standard_B2s' });
    await provider.runInstances({ ...first, placement: { ...first.placement, jobsController: true } });
    const inOther = bed.provider({ subscriptionId: other });
    const second = runRequest({ clusterName: 'ctl-sub2', instanceType: 'Standard_B2s' });
    const roleIn = () => [...om.resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleDefinitions' && r.properties.roleName.startsWith(CONTROLLER_ROLE_NAME));
    for (let i = 0; i < 2; i++) { // the second launch finds it by its own name
      await inOther.runInstances({ ...second, placement: { ...second.placement, jobsController: true } });
      const [def, ...more] = roleIn();
      assert.equal(more.length, 0);
      assert.equal(def.properties.roleName, `${CONTROLLER_ROLE_NAME} (${other})`);
      assert.deepEqual(def.properties.assignableScopes, [`/subscriptions/${other}`]);
      assert.deepEqual(def.properties.permissions[0].actions, [...CONTROLLER_ACTIONS]);
      // Its autostop role too: at this subscription's own GUID (the condition names it), under its own name.
      const autostop = [...om.resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleDefinitions' && r.properties.roleName.startsWith(AUTOSTOP_ROLE_NAME));
      assert.deepEqual(autostop.map((d) => [d.name, d.properties.roleName]), [[autostopRoleGuid(other), `${AUTOSTOP_ROLE_NAME} (${other})`]]);
    }
    const principal = om.get(`/subscriptions/${other}/resourceGroups/${groupName(second.uid)}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${BUCKET_IDENTITY}`)!.properties.principalId;
    const [ra] = [...om.resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleAssignments' && r.properties.principalId === principal && r.properties.scope === `/subscriptions/${other}/resourceGroups/skydeck-${second.uid}-jobs`);
    assert.equal(ra.properties.roleDefinitionId, roleIn()[0].id);
    assert.equal(roles().filter((d) => d.properties.roleName === CONTROLLER_ROLE_NAME).length, 1, 'the first subscription keeps the plain name');
    await inOther.terminateInstances({ uid: second.uid });
    await provider.terminateInstances({ uid: first.uid });
    assert.equal(om.get(ra.id), undefined);
  });

  it('an assignment whose cluster no row owns (its group deleted behind Skydeck\'s back) is listed by the sweep and deleted there with proof', async () => {
    const req = runRequest({ clusterName: 'orphan-ctl', instanceType: 'Standard_B2s' });
    req.workspaceId = 'ws-test';
    await provider.runInstances({ ...req, placement: { ...req.placement, jobsController: true } });
    const principal = identityOf(req.uid)!.properties.principalId;
    const ras = assignments().filter((a) => a.properties.principalId === principal && a.properties.description?.startsWith('Skydeck jobs controller;'));
    assert.deepEqual(ras.map((a) => a.properties.scope).sort(), [`/subscriptions/${sub()}`, jobsGroupId(req.uid)].sort());
    m().deleteGroup(groupName(req.uid));
    assert.ok(await groupGone(req.uid));
    const sweep = await findLeakedInstances(ctx, ['azure']);
    // Its jobs group, left too, is a leaked pseudo-instance of the uid: ended first (it holds one of the assignments).
    const group = [...sweep.thisWorkspace, ...sweep.otherWorkspaces].filter((l) => l.uid === req.uid);
    assert.deepEqual(group.map((l) => l.instance.id), [`skydeck-${req.uid}-jobs`]);
    const t = await terminateLeakedInstance(ctx, group[0]);
    assert.ok(t.confirmed, t.message);
    for (let i = 0; i < 200 && m().get(jobsGroupId(req.uid)); i++) await new Promise((r) => setTimeout(r, 25));
    const leaked = [...((await findLeakedInstances(ctx, ['azure'])).strayIdentities ?? [])].filter((i) => i.uid === req.uid);
    // The one on the jobs group went with the group; the subscription's is left to delete.
    assert.deepEqual(leaked.map((i) => [i.kind, i.name]), ras.filter((ra) => ra.properties.scope === `/subscriptions/${sub()}`).map((ra) => ['jobs controller role assignment', ra.id]));
    const r = await deleteStrayIdentity(ctx, leaked[0]);
    assert.ok(r.deleted, r.message);
    assert.match(r.message, /deleted jobs controller role assignment .* \(proof: GET answers 404\)/);
    for (const ra of ras) assert.equal(m().get(ra.id), undefined);
  });

  it('as the controller\'s identity: a job cluster with Blob mounts is launched in its jobs group, stopped, started, listed and ended, every request within the roles at their scopes; what it must not do is refused', async () => {
    // A controller VM (no row needed: only its identity is used).
    const ctl = runRequest({ clusterName: 'ctl-as', instanceType: 'Standard_B2s' });
    await provider.runInstances({ ...ctl, placement: { ...ctl.placement, jobsController: true } });
    const mi = identityOf(ctl.uid)!;
    const token = `fake-mi-token:${mi.properties.principalId}`;
    const jobsId = jobsIdentityId(sub(), ctl.uid);
    const asController = bed.provider({ credential: { getToken: async () => ({ token, expiresOnTimestamp: Date.now() + 3600_000 }) }, catalogDir: path.join(bed.dir, 'ctl-catalog'), jobsIdentity: jobsId });
    // The submits' grants, from this machine (controllerBuckets.ts): the VM makes none.
    await provider.grantBuckets({ uid: ctl.uid, account: sub(), jobsController: true }, [blob('in'), blob('out')]);
    bed.fake.requests.length = 0;
    bed.fake.recording = true;
    try {
      // A two-node job cluster, mounting a container.
      const job = runRequest({ clusterName: 'job-1', numNodes: 2 });
      const jobReq = { ...job, placement: { ...job.placement, bucketAccess: [blob('in')] } };
      const ref: ClusterRef = { uid: job.uid, account: sub() };
      await asController.catalog(REGION);
      await asController.runInstances(jobReq);
      await asController.waitInstances(ref, 'running', 10_000);
      await asController.clusterInfo(ref);
      await asController.openPorts(ref, [{ from: 8080, to: 8080 }]);
      await asController.grantBuckets(ref, [blob('out')]);
      await asController.stopInstances(ref);
      await asController.waitInstances(ref, 'stopped', 10_000);
      await asController.runInstances(jobReq); // a recovery's relaunch: starts the deallocated VMs
      await asController.waitInstances(ref, 'running', 10_000);
      await asController.listTagged();
      // One VM ends alone, leaving its NIC, IP and disk (made as an older cluster would): the parts are deleted too.
      const [first] = (await asController.queryInstances(ref)).map((i) => i.id);
      const vm = m().get(`${jobsGroupId(ctl.uid)}/providers/Microsoft.Compute/virtualMachines/${first}`)!;
      vm.properties.networkProfile.networkInterfaces[0].properties.deleteOption = 'Detach';
      vm.properties.storageProfile.osDisk.deleteOption = 'Detach';
      await asController.terminateInstances(ref, [first]);
      for (let i = 0; i < 100 && (await asController.queryInstances(ref)).some((x) => x.id === first && !/left without its VM/.test(x.instanceType ?? '')); i++) await new Promise((r) => setTimeout(r, 25));
      await asController.terminateInstances(ref, [first]);
      await asController.terminateInstances(ref);
      await asController.waitInstances(ref, 'terminated', 10_000);
      const rel = await asController.releaseIdentities(ref, { timeoutMs: 10_000, progress: () => undefined });
      assert.deepEqual(rel.left, []);
      // The job cluster had no identity of its own: its nodes carried the controller's jobs
      // identity, whose grants are the controller's (another job cluster may use them), kept here.
      assert.deepEqual(rel.gone, []);
      assert.deepEqual(m().under(`${jobsGroupId(ctl.uid)}/providers/Microsoft.ManagedIdentity/`), []);
      const jobsPrincipal = m().get(jobsId)!.properties.principalId;
      assert.equal(assignments().filter((a) => a.properties.principalId === jobsPrincipal && a.properties.roleDefinitionId.endsWith(`/${ROLE_BLOB_CONTRIBUTOR}`)).length, 2);
      // Nothing of it is left in the jobs group (its VNet and NSG included); the group stays, the controller's.
      assert.deepEqual(m().under(`${jobsGroupId(ctl.uid)}/`).filter((r) => JSON.stringify(r).includes(job.uid) || String(r.name).includes(job.uid.slice(0, 8))), []);
      assert.ok(m().get(jobsGroupId(ctl.uid)));
      assert.equal(m().get(groupId(job.uid)), undefined, 'it never had a group of its own');
    } finally {
      bed.fake.recording = false;
    }
    // Every request's actions (its own and the linked ones ARM checks) are in a role assigned at
    // or above its path: the controller role for what is in the jobs group, the lookups role
    // for the rest; reading and attaching the jobs identity, in its role on that identity alone.
    const seen = new Set<string>();
    const onJobs = new Set<string>();
    const inGroup = `${jobsGroupId(ctl.uid)}`.toLowerCase();
    for (const r of bed.fake.requests) {
      for (const a of r.actions) {
        if (covers(JOBS_IDENTITY_ACTIONS, a)) {
          assert.ok(r.path.toLowerCase() === jobsId.toLowerCase() || /\/virtualMachines\/[^/]+$/i.test(r.path), `${r.method} ${r.path} needs ${a}`);
          onJobs.add(a);
          continue;
        }
        const low = r.path.toLowerCase();
        const there = low === inGroup || low.startsWith(`${inGroup}/`);
        assert.ok(covers(there ? CONTROLLER_ACTIONS : CONTROLLER_SUBSCRIPTION_ACTIONS, a) || (there && covers(CONTROLLER_SUBSCRIPTION_ACTIONS, a)), `${r.method} ${r.path} needs ${a}, which the role at its scope lacks`);
        seen.add(a.toLowerCase());
      }
    }
    assert.deepEqual([...onJobs].sort(), [...JOBS_IDENTITY_ACTIONS].sort());
    // And the roles hold nothing the provider did not use, but for the network RP's operation
    // polls (the fake answers every long-running operation at the compute RP's URL).
    const unused = [...CONTROLLER_ACTIONS, ...CONTROLLER_SUBSCRIPTION_ACTIONS].filter((a) => !seen.has(a.toLowerCase()));
    assert.deepEqual(unused, ['Microsoft.Network/locations/operations/read', 'Microsoft.Network/locations/operationResults/read']);
    assert.deepEqual(bed.fake.requests.filter((r) => r.method !== 'GET' && /roleAssignments/i.test(r.path)), [], 'it made and deleted no role assignment');

    // What the controller's identity must not do, refused by ARM (role or condition).
    const c = new AzureClients({ ...bed.options(), credential: { getToken: async () => ({ token, expiresOnTimestamp: Date.now() + 3600_000 }) } });
    const [def] = roles();
    const denied = async (what: string, fn: () => Promise<unknown>) => assert.rejects(fn(), (e: { code?: string }) => e.code === 'AuthorizationFailed', what);
    await denied('widen its own role', () => c.resources.resources.beginCreateOrUpdateByIdAndWait(def.id.slice(1), ROLE_DEFINITIONS_API,
      { properties: { ...def.properties, permissions: [{ actions: ['*'] }] } }, { updateIntervalInMs: 10 }));
    const assign = (role: string, principalType = 'ServicePrincipal') => c.resources.resources.beginCreateOrUpdateByIdAndWait(
      `subscriptions/${sub()}/providers/Microsoft.Authorization/roleAssignments/0b6f3a1e-5c1d-4e55-9d2b-6a1f0c3e8d77`, '2022-04-01',
      { properties: { roleDefinitionId: roleDefinitionId(sub(), role), principalId: mi.properties.principalId, principalType } }, { updateIntervalInMs: 10 });
    await denied('assign itself Contributor on the subscription', () => assign(ROLE_CONTRIBUTOR));
    await denied('assign the Blob role to a user', () => assign(ROLE_BLOB_CONTRIBUTOR, 'User'));
    const [own] = subAssignmentsOf(mi.properties.principalId);
    await denied('delete its own assignment', () => c.resources.resources.beginDeleteByIdAndWait(own.id.slice(1), '2022-04-01', { updateIntervalInMs: 10 }));
    assert.ok(m().get(own.id));
    const [onGroup] = assignments().filter((a) => a.properties.principalId === mi.properties.principalId && a.properties.scope === jobsGroupId(ctl.uid));
    await denied('delete its own assignment on the jobs group', () => c.resources.resources.beginDeleteByIdAndWait(onGroup.id.slice(1), '2022-04-01', { updateIntervalInMs: 10 }));
    await denied('assign itself the controller role on the subscription', () => assign(def.name));
    assert.ok(m().get(onGroup.id));
    await provider.terminateInstances({ uid: ctl.uid });
    assert.ok(await groupGone(ctl.uid));
  });

  it('as the controller\'s identity: a job cluster with autostop is refused before anything is made (its head would reach the whole jobs group); the controller may grant no VM Contributor, Contributor or Owner to anyone, on the subscription or its jobs group', async () => {
    const ctl = runRequest({ clusterName: 'ctl-narrow', instanceType: 'Standard_B2s' });
    await provider.runInstances({ ...ctl, placement: { ...ctl.placement, jobsController: true } });
    const mi = identityOf(ctl.uid)!;
    const credential = (principal: string) => ({ getToken: async () => ({ token: `fake-mi-token:${principal}`, expiresOnTimestamp: Date.now() + 3600_000 }) });
    const asController = bed.provider({ credential: credential(mi.properties.principalId), catalogDir: path.join(bed.dir, 'ctl-narrow-catalog'), jobsIdentity: jobsIdentityId(sub(), ctl.uid) });
    const job = runRequest({ clusterName: 'job-narrow', numNodes: 2 });
    const before = m().calls.length;
    await assert.rejects(asController.runInstances({ ...job, autostop: { down: false } }), (e: Error & { kind?: string; hint?: string }) => {
      assert.equal(e.kind, 'config');
      assert.match(e.message, /cannot have autostop/);
      assert.match(e.hint ?? '', /the controller tears its cluster down when the job ends/);
      return true;
    });
    assert.equal(m().calls.length, before, 'nothing made');
    await asController.runInstances(job);
    await asController.waitInstances({ uid: job.uid, account: sub() }, 'running', 10_000);
    const jobsPrincipal = m().get(jobsIdentityId(sub(), ctl.uid))!.properties.principalId;

    // What the condition refuses: VM Contributor, Contributor, Owner, to the controller itself or its
    // jobs identity, on the subscription or the jobs group.
    const c = new AzureClients({ ...bed.options(), credential: credential(mi.properties.principalId) });
    const OWNER = '8e3af657-a8ff-443c-a75c-2fe8c4bcb635';
    for (const [role, roleName] of [[ROLE_VM_CONTRIBUTOR, 'Virtual Machine Contributor'], [ROLE_CONTRIBUTOR, 'Contributor'], [OWNER, 'Owner']]) {
      for (const [principal, who] of [[mi.properties.principalId, 'itself'], [jobsPrincipal, 'its jobs identity']]) {
        for (const scope of [`/subscriptions/${sub()}`, jobsGroupId(ctl.uid)]) {
          await assert.rejects(c.resources.resources.beginCreateOrUpdateByIdAndWait(
            `${scope.slice(1)}/providers/Microsoft.Authorization/roleAssignments/${crypto.randomUUID()}`, '2022-04-01',
            { properties: { roleDefinitionId: roleDefinitionId(sub(), role), principalId: principal, principalType: 'ServicePrincipal' } }, { updateIntervalInMs: 10 }),
          (e: { code?: string }) => e.code === 'AuthorizationFailed', `${roleName} to ${who} on ${scope}`);
        }
      }
    }
    assert.deepEqual(assignments().filter((a) => [ROLE_VM_CONTRIBUTOR, ROLE_CONTRIBUTOR, OWNER].some((r) => a.properties.roleDefinitionId.endsWith(`/${r}`))), []);
    await asController.terminateInstances({ uid: job.uid, account: sub() });
    await asController.waitInstances({ uid: job.uid, account: sub() }, 'terminated', 10_000);
    await provider.terminateInstances({ uid: ctl.uid });
    assert.ok(await groupGone(ctl.uid));
  });

  it('on the node, the CLI\'s credential chain with controllerNodeEnv signs in through IMDS as the user-assigned identity, not the system-assigned one', async () => {
    const ctl = runRequest({ clusterName: 'ctl-imds', instanceType: 'Standard_B2s' });
    await provider.runInstances({ ...ctl, autostop: { down: false }, placement: { ...ctl.placement, jobsController: true } });
    const [vm] = m().under(`${groupId(ctl.uid)}/providers/Microsoft.Compute/virtualMachines/`);
    assert.ok(vm.identity.principalId, 'the head also has the system-assigned identity autostop uses');
    const imds = await new ImdsFake(m(), vm.id).start();
    const saved = process.env.AZURE_POD_IDENTITY_AUTHORITY_HOST;
    process.env.AZURE_POD_IDENTITY_AUTHORITY_HOST = `http://127.0.0.1:${imds.port}`; // the IMDS endpoint, pointed at the fake
    try {
      // No credential given: the node's CLI builds DefaultAzureCredential from its environment.
      const nodeEnv = provider.controllerNodeEnv({ uid: ctl.uid, account: sub() });
      const { credential: _c, subscriptionId: _s, ...noCred } = bed.options();
      const c = new AzureClients({ ...noCred, env: nodeEnv });
      assert.equal(c.subscriptionId, sub());
      const jobsGroup = `skydeck-${ctl.uid}-jobs`;
      assert.equal((await c.resources.resourceGroups.get(jobsGroup)).name, jobsGroup, 'its jobs group: the controller role, not the group-scoped autostop one');
      const asked = imds.requests.filter((r) => r.startsWith('/metadata/identity/oauth2/token'));
      assert.ok(asked.length > 0 && asked.every((r) => new URL(r, 'http://x').searchParams.get('msi_res_id') === identityOf(ctl.uid)!.id), asked.join('\n'));
      // Without the env the chain takes the system-assigned identity, which may not read the jobs group.
      const plain = new AzureClients({ ...noCred, env: { AZURE_SUBSCRIPTION_ID: sub() } });
      await assert.rejects(plain.resources.resourceGroups.get(jobsGroup), (e: { code?: string }) => e.code === 'AuthorizationFailed');
    } finally {
      if (saved === undefined) delete process.env.AZURE_POD_IDENTITY_AUTHORITY_HOST;
      else process.env.AZURE_POD_IDENTITY_AUTHORITY_HOST = saved;
      await imds.stop();
      await provider.terminateInstances({ uid: ctl.uid });
    }
  });
});
