// The Azure controller's one jobs identity, on the ARM fake. The controller VM's own identity
// holds no managed-identity action on the subscription (it could attach any user-assigned
// identity there and act as it); this machine makes one identity per controller, in its group,
// on which alone the controller may read and assign/action. Job clusters it launches with Blob
// mounts carry that identity; the fake checks assign/action on the identity's own scope (ARM's
// linked check), so attaching any other identity is refused 403 LinkedAuthorizationFailed.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { type BucketAccess, type ClusterRef } from '../../../src/core/clouds/provider';
import { getCluster, putCluster } from '../../../src/core/state';
import { down, stop, type OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { findLeakedInstances } from '../../../src/core/ops/leaks';
import { refOf } from '../../../src/core/provision/handle';
import { controllerTaskText } from '../../../src/core/managed/remote/controllerCluster';
import type { ControllerPlace } from '../../../src/core/managed';
import { groupName } from '../../../src/core/clouds/azure';
import { AzureClients } from '../../../src/core/clouds/azure/clients';
import { BUCKET_IDENTITY, JOBS_IDENTITY, jobsIdentityId, MI_API } from '../../../src/core/clouds/azure/bucketIdentity';
import { JOBS_IDENTITY_ACTIONS, JOBS_IDENTITY_ROLE_NAME } from '../../../src/core/clouds/azure/controllerRole';
import { ROLE_BLOB_CONTRIBUTOR } from '../../../src/core/clouds/azure/bucketGrants';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { ImdsFake } from '../../support/fakes/azureFake/imds';
import { task } from '../../unit/task/helpers';
import { REGION, runRequest, startAzureBed, type AzureBed, bedOpsContext } from './helpers';

const PLACE: ControllerPlace = { kind: 'cloud', cloud: 'azure', region: REGION };
const DATA_RG = 'data-rg';
const USER_RG = 'user-rg';

describe('azure: a managed-jobs controller\'s one jobs identity (ARM fake)', function () {
  this.timeout(60_000);
  let bed: AzureBed;
  let ctx: OpsContext;
  let provider: ReturnType<AzureBed['provider']>;

  const m = () => bed.fake.model;
  const sub = () => m().subscription;
  const groupId = (uid: string) => `/subscriptions/${sub()}/resourceGroups/${groupName(uid)}`;
  /** Where a controller's job clusters are: its one jobs group. */
  const jobsGroupId = (ctlUid: string) => `/subscriptions/${sub()}/resourceGroups/skydeck-${ctlUid}-jobs`;
  const vmsOf = (ctlUid: string, jobUid: string) => m().under(`${jobsGroupId(ctlUid)}/providers/Microsoft.Compute/virtualMachines/`).filter((v) => v.tags[TAG_UID] === jobUid);
  const miId = (uid: string, name: string) => `${groupId(uid)}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${name}`;
  const assignments = () => [...m().resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleAssignments');
  const of = (principal: string) => assignments().filter((a) => a.properties.principalId === principal);
  const blob = (bucket: string): BucketAccess => ({ store: 'azure', account: 'jobdata', bucket });
  const container = (bucket: string) => `/subscriptions/${sub()}/resourceGroups/${DATA_RG}/providers/Microsoft.Storage/storageAccounts/jobdata/blobServices/default/containers/${bucket}`;
  const token = (principal: string) => ({ getToken: async () => ({ token: `fake-mi-token:${principal}`, expiresOnTimestamp: Date.now() + 3600_000 }) });
  const launchController = (name: string, existing?: Parameters<typeof launchOnProvider>[3]['existing']) => launchOnProvider(ctx, name, task(controllerTaskText(PLACE, 'x64')), {
    cloud: 'azure', autostop: { minutes: 10, down: false }, jobsController: true, ...(existing ? { existing } : {}),
  });
  /** The provider the controller VM's CLI builds: signed in as its identity, with the env controllerNodeEnv gives it. */
  const asControllerOf = (row: Awaited<ReturnType<typeof launchController>>, extra = {}) => {
    const own = m().get(miId(row.uid, BUCKET_IDENTITY))!;
    return bed.provider({ credential: token(own.properties.principalId), env: provider.controllerNodeEnv(refOf(row)), catalogDir: path.join(bed.dir, `cat-${row.uid}`), ...extra });
  };

  before(async function () {
    bed = await startAzureBed(this);
    const acct = `/subscriptions/${sub()}/resourceGroups/${DATA_RG}/providers/Microsoft.Storage/storageAccounts/jobdata`;
    for (const rg of [DATA_RG, USER_RG]) m().put({ id: m().groupId(rg), name: rg, type: 'Microsoft.Resources/resourceGroups', location: REGION, tags: {}, properties: { provisioningState: 'Succeeded' } });
    m().put({ id: acct, name: 'jobdata', type: 'Microsoft.Storage/storageAccounts', location: REGION, tags: {}, kind: 'StorageV2', properties: { provisioningState: 'Succeeded' } });
    provider = bed.provider();
    ctx = await bedOpsContext(bed, provider);
  });
  after(async () => {
    ctx?.store.close();
    await bed?.close();
  });

  it('a job cluster with a Blob mount launched by the controller runs as the jobs identity (no identity of its own); its grant is the controller\'s, kept at the job\'s down, gone at the controller\'s', async () => {
    const row = await launchController('ctl-jobs-blob');
    const jobsId = jobsIdentityId(sub(), row.uid);
    const jobs = m().get(jobsId)!;
    assert.ok(jobs, 'made by this machine with the controller');
    assert.equal(jobs.tags[TAG_UID], row.uid, 'tagged as the controller, for the sweep');
    // Submit: the container goes to the controller's identity and to its jobs identity (controllerBuckets.ts).
    const g = await provider.grantBuckets(refOf(row), [blob('in'), blob('extra')]);
    assert.deepEqual(g, { identity: `managed identity ${BUCKET_IDENTITY} of cluster ${row.uid} and ${JOBS_IDENTITY}`, changed: true });

    const asController = asControllerOf(row);
    const job = runRequest({ clusterName: 'job-blob', numNodes: 2 });
    const ref: ClusterRef = { uid: job.uid, account: sub() };
    await asController.runInstances({ ...job, placement: { ...job.placement, bucketAccess: [blob('in'), blob('extra')] } });
    await asController.waitInstances(ref, 'running', 10_000);
    const vms = vmsOf(row.uid, job.uid);
    assert.equal(vms.length, 2);
    for (const vm of vms) assert.deepEqual([vm.identity.type, Object.keys(vm.identity.userAssignedIdentities)], ['UserAssigned', [jobsId]]);
    assert.deepEqual(m().under(`${jobsGroupId(row.uid)}/providers/Microsoft.ManagedIdentity/`), [], 'the job cluster has no identity of its own');
    assert.equal(asController.bucketIdentity(ref), jobsId, 'what rclone names (msi_mi_res_id)');
    // The node's token (IMDS, by that resource id) is the jobs identity's, which holds Blob on both containers.
    const imds = await new ImdsFake(m(), vms[0].id).start();
    try {
      const r = await fetch(`${imds.url}/identity/oauth2/token?api-version=2018-02-01&resource=https://storage.azure.com/&msi_res_id=${encodeURIComponent(jobsId)}`, { headers: { Metadata: 'true' } });
      assert.equal((await r.json() as { access_token: string }).access_token, `fake-mi-token:${jobs.properties.principalId}`);
    } finally {
      await imds.stop();
    }
    const blobs = () => of(jobs.properties.principalId).filter((a) => a.properties.roleDefinitionId.endsWith(`/${ROLE_BLOB_CONTRIBUTOR}`));
    assert.deepEqual(blobs().map((a) => a.properties.scope).sort(), [container('extra'), container('in')]);
    for (const a of blobs()) assert.match(a.properties.description, new RegExp(`skydeck-cluster-uid=${row.uid}`), 'the controller\'s grant, not the job cluster\'s');

    // The job cluster's down (by the controller) keeps them: another job cluster may use them.
    await asController.terminateInstances(ref);
    await asController.waitInstances(ref, 'terminated', 10_000);
    assert.equal(blobs().length, 2);
    const d = await down(ctx, 'ctl-jobs-blob');
    assert.ok(d.cleaned, d.notes.join('\n'));
    assert.deepEqual(blobs(), []);
    assert.equal(m().get(jobsId), undefined);
  });

  it('the controller attaching any other identity to a VM it creates (the user\'s own, another cluster\'s, its own) is refused 403 LinkedAuthorizationFailed; it may create none', async () => {
    const row = await launchController('ctl-attach');
    const asController = asControllerOf(row);
    const c = new AzureClients({ ...bed.options(), credential: token(m().get(miId(row.uid, BUCKET_IDENTITY))!.properties.principalId) });
    // The user's own identity and a cluster launched from this machine with a Blob mount (its own identity).
    const mine = await provider.clients.resources.resources.beginCreateOrUpdateByIdAndWait(
      `subscriptions/${sub()}/resourceGroups/${USER_RG}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/my-admin`, MI_API, { location: REGION, tags: {} }, { updateIntervalInMs: 10 });
    const other = runRequest({ clusterName: 'laptop-blob' });
    await provider.runInstances({ ...other, placement: { ...other.placement, bucketAccess: [blob('in')] } });
    // A job cluster (its group, network and NIC made as the controller), then a second VM on a new NIC naming each identity.
    const job = runRequest({ clusterName: 'job-attach' });
    await asController.runInstances(job);
    const g = `skydeck-${row.uid}-jobs`;
    const [vm] = vmsOf(row.uid, job.uid);
    const subnet = `${jobsGroupId(row.uid)}/providers/Microsoft.Network/virtualNetworks/skydeck-vnet-${job.uid}/subnets/default`;
    const nic = await c.network.networkInterfaces.beginCreateOrUpdateAndWait(g, 'rogue-nic', { location: REGION, ipConfigurations: [{ name: 'ip', subnet: { id: subnet } }] }, { updateIntervalInMs: 10 });
    const attach = (id: string) => c.compute.virtualMachines.beginCreateOrUpdateAndWait(g, 'rogue', {
      location: REGION, hardwareProfile: vm.properties.hardwareProfile, storageProfile: { imageReference: vm.properties.storageProfile.imageReference, osDisk: { createOption: 'FromImage', deleteOption: 'Delete' } },
      osProfile: vm.properties.osProfile, networkProfile: { networkInterfaces: [{ id: nic.id, primary: true, deleteOption: 'Delete' }] },
      identity: { type: 'UserAssigned', userAssignedIdentities: { [id]: {} } },
    }, { updateIntervalInMs: 10 });
    for (const [what, id] of [['the user\'s own', mine.id!], ['a laptop cluster\'s', miId(other.uid, BUCKET_IDENTITY)], ['the controller\'s own', miId(row.uid, BUCKET_IDENTITY)]]) {
      await assert.rejects(attach(id), (e: { code?: string; statusCode?: number; message: string }) => {
        assert.equal(e.statusCode, 403, what);
        assert.equal(e.code, 'LinkedAuthorizationFailed', what);
        assert.ok(e.message.includes(`'Microsoft.ManagedIdentity/userAssignedIdentities/assign/action' on the linked scope(s) '${id}'`), e.message);
        return true;
      }, what);
      assert.equal(m().get(`${jobsGroupId(row.uid)}/providers/Microsoft.Compute/virtualMachines/rogue`), undefined);
    }
    // Nor can it make an identity of its own to attach.
    await assert.rejects(c.resources.resources.beginCreateOrUpdateByIdAndWait(`${jobsGroupId(row.uid).slice(1)}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/mine`, MI_API, { location: REGION }, { updateIntervalInMs: 10 }),
      (e: { code?: string }) => e.code === 'AuthorizationFailed');
    // Its jobs identity it may attach (the same request otherwise).
    await attach(jobsIdentityId(sub(), row.uid));
    await asController.terminateInstances({ uid: job.uid, account: sub() });
    await provider.terminateInstances({ uid: other.uid });
    const d = await down(ctx, 'ctl-attach');
    assert.ok(d.cleaned, d.notes.join('\n'));
  });

  it('down of the controller deletes the jobs identity\'s assignment and the identity, each with proof; without a row the sweep names the assignment; a relaunch keeps one identity and one assignment, set back', async () => {
    const row = await launchController('ctl-down');
    const jobsId = jobsIdentityId(sub(), row.uid);
    const principal = m().get(miId(row.uid, BUCKET_IDENTITY))!.properties.principalId;
    const onJobs = () => assignments().filter((a) => a.properties.scope === jobsId);
    const [ra, ...more] = onJobs();
    assert.equal(more.length, 0);
    assert.equal(ra.properties.principalId, principal, 'the controller\'s identity, at the jobs identity only');
    const def = m().get(ra.properties.roleDefinitionId)!;
    assert.equal(def.properties.roleName, JOBS_IDENTITY_ROLE_NAME);
    assert.deepEqual(def.properties.permissions[0].actions, [...JOBS_IDENTITY_ACTIONS]);
    assert.deepEqual(of(principal).filter((a) => a.properties.scope !== `/subscriptions/${sub()}` && a.properties.scope !== jobsGroupId(row.uid)).map((a) => a.id), [ra.id], 'no other assignment of the controller');

    // Relaunch (stopped, started again): the same identity and assignment; a widened role set back.
    const jobsPrincipal = m().get(jobsId)!.properties.principalId;
    def.properties.permissions = [{ actions: ['Microsoft.ManagedIdentity/*'], notActions: [], dataActions: [], notDataActions: [] }];
    await stop(ctx, 'ctl-down');
    await launchController('ctl-down', (await ctx.store.read((db) => getCluster(db, 'ctl-down')))!);
    assert.equal(m().get(jobsId)!.properties.principalId, jobsPrincipal);
    assert.deepEqual(onJobs().map((a) => a.id), [ra.id]);
    assert.deepEqual(m().get(ra.properties.roleDefinitionId)!.properties.permissions[0].actions, [...JOBS_IDENTITY_ACTIONS]);

    // No row (a crash before recording, or a row lost): the sweep names the jobs identity's assignment.
    const cur = (await ctx.store.read((db) => getCluster(db, 'ctl-down')))!;
    await ctx.store.write((db) => db.run('DELETE FROM clusters WHERE name = ?', ['ctl-down']));
    const stray = await findLeakedInstances(ctx, ['azure']);
    assert.ok((stray.strayIdentities ?? []).some((i) => i.kind === 'jobs identity role assignment' && i.name === ra.id && i.uid === row.uid), JSON.stringify(stray.strayIdentities));
    await ctx.store.write((db) => putCluster(db, cur));

    // An assignment the jobs identity got without Skydeck's description (by hand, or from an older controller's VM).
    const rogue = `${container('other').slice(1)}/providers/Microsoft.Authorization/roleAssignments/${crypto.randomUUID()}`;
    await provider.clients.resources.resources.beginCreateOrUpdateByIdAndWait(rogue, '2022-04-01',
      { properties: { roleDefinitionId: `/subscriptions/${sub()}/providers/Microsoft.Authorization/roleDefinitions/${ROLE_BLOB_CONTRIBUTOR}`, principalId: jobsPrincipal, principalType: 'ServicePrincipal' } }, { updateIntervalInMs: 10 });
    assert.ok(m().get(`/${rogue}`));

    const d = await down(ctx, 'ctl-down');
    assert.ok(d.cleaned, d.notes.join('\n'));
    assert.ok(d.notes.includes(`deleted jobs identity role assignment ${ra.id} (proof: GET ${ra.id} answers 404)`), d.notes.join('\n'));
    assert.ok(d.notes.includes(`deleted Blob role assignment /${rogue} (proof: GET /${rogue} answers 404)`), d.notes.join('\n'));
    assert.equal(m().get(`/${rogue}`), undefined);
    assert.ok(d.notes.some((n) => n.startsWith(`deleted managed identity ${JOBS_IDENTITY} of ${groupName(row.uid)} (proof: GET ${jobsId} answers 404`)), d.notes.join('\n'));
    assert.equal(m().get(ra.id), undefined);
    assert.equal(m().get(jobsId), undefined);
  });
});
