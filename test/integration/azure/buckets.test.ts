// Azure Blob mounts read with the VM's identity: one user-assigned managed identity per cluster,
// attached to every VM, with Storage Blob Data Contributor on exactly the task's containers.
// The role assignments sit on the containers, outside the cluster's group: down deletes them
// with proof (GET → 404) before the group; a failed launch leaves none; a missing storage
// account fails before anything is made; the sweep lists grants whose cluster no row owns.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StateStore } from '../../../src/core/state';
import { downWithProof, findLeaked, makeEnv, provision, realClock, type Bootstrap, type ProvisionEnv } from '../../../src/core/provision';
import { groupName } from '../../../src/core/clouds/azure';
import { BUCKET_IDENTITY } from '../../../src/core/clouds/azure/bucketIdentity';
import { ROLE_BLOB_CONTRIBUTOR } from '../../../src/core/clouds/azure/bucketGrants';
import { TAG_HEAD } from '../../../src/core/clouds/azure/names';
import type { BucketAccess, Placement } from '../../../src/core/clouds/provider';
import { ArmError } from '../../support/fakes/azureFake/bodies';
import { startAzureBed, runRequest, type AzureBed } from './helpers';

const noBootstrap: Bootstrap = async () => ({ workdir: '/tmp' });
const DATA_RG = 'data-rg';

describe('azure: Blob containers through a per-cluster managed identity', function () {
  this.timeout(30_000);
  let bed: AzureBed;
  let store: StateStore;
  let env: ProvisionEnv;
  let provider: ReturnType<AzureBed['provider']>;
  const logs: string[] = [];

  const sub = () => bed.fake.model.subscription;
  const groupId = (uid: string) => `/subscriptions/${sub()}/resourceGroups/${groupName(uid)}`;
  const accountId = (acct: string) => `/subscriptions/${sub()}/resourceGroups/${DATA_RG}/providers/Microsoft.Storage/storageAccounts/${acct}`;
  const containerId = (acct: string, c: string) => `${accountId(acct)}/blobServices/default/containers/${c}`;
  const identityId = (uid: string) => `${groupId(uid)}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${BUCKET_IDENTITY}`;
  const blobGrants = () => [...bed.fake.model.resources.values()]
    .filter((r) => r.type === 'Microsoft.Authorization/roleAssignments' && r.properties.roleDefinitionId.endsWith(`/${ROLE_BLOB_CONTRIBUTOR}`));
  const vmsOf = (uid: string) => bed.fake.model.under(`${groupId(uid)}/providers/Microsoft.Compute/virtualMachines/`);
  const placement = (access: BucketAccess[], region = 'eastus'): Placement => ({ cloud: 'azure', region, instanceType: 'Standard_D2s_v5', useSpot: false, bucketAccess: access });
  const blob = (account: string, bucket: string, prefix?: string): BucketAccess => ({ store: 'azure', account, bucket, ...(prefix ? { prefix } : {}) });
  const groupGone = async (uid: string) => {
    for (let i = 0; i < 200 && bed.fake.model.get(groupId(uid)); i++) await new Promise((r) => setTimeout(r, 25));
    return !bed.fake.model.get(groupId(uid));
  };

  before(async function () {
    bed = await startAzureBed(this);
    const m = bed.fake.model;
    m.put({ id: m.groupId(DATA_RG), name: DATA_RG, type: 'Microsoft.Resources/resourceGroups', location: 'eastus', tags: {}, properties: { provisioningState: 'Succeeded' } });
    for (const acct of ['dataacct', 'otheracct']) {
      m.put({ id: accountId(acct), name: acct, type: 'Microsoft.Storage/storageAccounts', location: 'eastus', tags: {}, kind: 'StorageV2', properties: { provisioningState: 'Succeeded' } });
    }
    store = await StateStore.openWorkspace(fs.mkdtempSync(path.join(bed.dir, 'ws-')));
    provider = bed.provider({ log: (l) => logs.push(l) });
    env = makeEnv({
      store, clock: realClock, progress: () => undefined, log: () => undefined,
      timing: { launchGraceMs: 2000, pollMs: 50, runningTimeoutMs: 5000, confirmTimeoutMs: 3000, reissueAfterMs: 1000, transientRetries: 2, backoffMs: 50 },
    }, provider);
  });
  after(async () => {
    store?.close();
    await bed?.close();
  });
  afterEach(() => {
    bed.fake.model.allocationFails.clear();
    bed.fake.pageSize = 1000;
    logs.length = 0;
  });

  it('a launch makes one identity, attaches it to every node, and grants exactly the task\'s container; down deletes the grant with proof, then the group', async () => {
    const before = blobGrants().length;
    const res = await provision(env, { name: 'blob', numNodes: 2, bootstrap: noBootstrap, placements: [placement([blob('dataacct', 'ckpt', 'run1'), blob('DataAcct', 'ckpt')])] });
    assert.ok(res.ok, res.error);
    const row = res.row!;
    const mi = bed.fake.model.get(identityId(row.uid));
    assert.equal(mi?.type, 'Microsoft.ManagedIdentity/userAssignedIdentities');
    assert.equal(provider.bucketIdentity({ uid: row.uid, account: row.account ?? undefined }), identityId(row.uid));
    const vms = vmsOf(row.uid);
    assert.equal(vms.length, 2);
    for (const vm of vms) {
      assert.equal(vm.identity.type, 'UserAssigned', vm.name);
      assert.deepEqual(Object.keys(vm.identity.userAssignedIdentities), [identityId(row.uid)], vm.name);
    }
    const grants = blobGrants();
    assert.equal(grants.length - before, 1, 'one container (the prefix and the account spelling do not make two)');
    const g = grants.find((r) => r.properties.principalId === mi.properties.principalId)!;
    assert.equal(g.properties.scope, containerId('dataacct', 'ckpt'));
    assert.equal(g.properties.principalType, 'ServicePrincipal');
    assert.match(g.properties.description, new RegExp(`skydeck-cluster=blob; skydeck-cluster-uid=${row.uid}; `));

    const down = await downWithProof(env, row);
    assert.ok(down.confirmed && down.deleted, down.reason);
    assert.equal(bed.fake.model.get(g.id), undefined, 'the grant is gone');
    assert.ok(logs.some((l) => l.includes(`Blob role assignment on dataacct/ckpt of cluster ${row.uid} is gone (GET ${g.id} answers 404)`)), logs.join('\n'));
    const calls = bed.fake.model.calls.map((c) => `${c.method} ${c.path}`.toLowerCase());
    const revoked = calls.indexOf(`delete ${g.id}`.toLowerCase());
    const groupDeleted = calls.indexOf(`delete ${groupId(row.uid)}`.toLowerCase());
    assert.ok(revoked >= 0 && groupDeleted > revoked, `the grant goes before the group: ${calls.filter((c) => c.startsWith('delete')).join(', ')}`);
    assert.ok(await groupGone(row.uid), 'the group (and the identity in it) is gone');
  });

  it('with autostop the head holds both identities; a relaunch with another container drops the old grant', async () => {
    const req = { ...runRequest({ numNodes: 2 }), autostop: { down: false } };
    await provider.runInstances({ ...req, placement: placement([blob('dataacct', 'one')]) });
    const head = vmsOf(req.uid).find((v) => v.tags[TAG_HEAD] === 'true')!;
    assert.equal(head.identity.type, 'SystemAssigned, UserAssigned');
    assert.ok(head.identity.principalId, 'the system-assigned principal autostop uses');
    const mine = () => blobGrants().filter((r) => r.properties.description.includes(req.uid)).map((r) => r.properties.scope);
    assert.deepEqual(mine(), [containerId('dataacct', 'one')]);
    await provider.runInstances({ ...req, placement: placement([blob('otheracct', 'two')]) });
    assert.deepEqual(mine(), [containerId('otheracct', 'two')]);
    await provider.terminateInstances({ uid: req.uid });
    assert.deepEqual(mine(), []);
  });

  it('a launch failing after the grant (no capacity) leaves no grant and no group', async () => {
    bed.fake.model.allocationFails.add('eastus');
    const before = blobGrants().length;
    const puts = () => bed.fake.model.calls.filter((c) => c.method === 'PUT' && /roleAssignments/.test(c.path) && c.body?.properties?.roleDefinitionId.endsWith(ROLE_BLOB_CONTRIBUTOR)).length;
    const put0 = puts();
    const from = bed.fake.model.calls.length;
    const res = await provision(env, { name: 'nocap', numNodes: 1, bootstrap: noBootstrap, placements: [placement([blob('dataacct', 'ckpt')])] });
    assert.equal(res.ok, false);
    assert.deepEqual(res.attempts.map((a) => [a.outcome, a.kind, a.cleanup]), [['failed', 'capacity', 'confirmed']]);
    assert.ok(puts() > put0, 'the grant was made before the VMs');
    assert.equal(blobGrants().length, before, 'and deleted by the failed attempt\'s clean-up');
    const mi = bed.fake.model.calls.slice(from).find((c) => c.method === 'PUT' && c.path.endsWith(`/userAssignedIdentities/${BUCKET_IDENTITY}`) && c.path.includes('skydeck-'))!;
    const uid = /resourceGroups\/skydeck-([^/]+)/i.exec(mi.path)![1];
    assert.ok(await groupGone(uid), 'the group with the identity is gone too');
  });

  it('a storage account not in the subscription fails the launch as config before anything is made', async () => {
    const writes = bed.fake.model.calls.length;
    const res = await provision(env, { name: 'noacct', numNodes: 1, bootstrap: noBootstrap, placements: [placement([blob('nosuchacct', 'ckpt')])] });
    assert.equal(res.ok, false);
    assert.equal(res.attempts[0].kind, 'config');
    assert.match(res.attempts[0].reason ?? '', /Azure storage account nosuchacct \(container ckpt\) is not in subscription/);
    const made = bed.fake.model.calls.slice(writes).filter((c) => c.method === 'PUT');
    assert.deepEqual(made, [], 'no group, identity or VM');
  });

  it('an account that may not grant roles: the launch fails as auth, naming the container', async () => {
    bed.fake.failNext('PUT', /containers\/ckpt\/providers\/Microsoft.Authorization\/roleAssignments/, new ArmError(403, 'AuthorizationFailed',
      "The client 'tester@example.com' does not have authorization to perform action 'Microsoft.Authorization/roleAssignments/write'."));
    const req = runRequest();
    await assert.rejects(provider.runInstances({ ...req, placement: placement([blob('dataacct', 'ckpt')]) }), (e: Error & { kind?: string }) => {
      assert.equal(e.kind, 'auth');
      assert.match(e.message, /may not give the cluster's identity a role on .*containers\/ckpt/);
      return true;
    });
    assert.deepEqual(vmsOf(req.uid), [], 'no VM made');
    await provider.terminateInstances({ uid: req.uid });
  });

  it('the leak sweep lists a grant whose cluster no row owns (every page), and not one a row owns', async () => {
    const owned = await provision(env, { name: 'owned', numNodes: 1, bootstrap: noBootstrap, placements: [placement([blob('dataacct', 'aaa')])] });
    assert.ok(owned.ok, owned.error);
    const stray = runRequest({ clusterName: 'gone' });
    await provider.runInstances({ ...stray, placement: placement([blob('otheracct', 'b')]) });
    bed.fake.pageSize = 1;
    const sweep = await findLeaked([env], 'ws-test');
    assert.deepEqual(sweep.errors, []);
    const grant = blobGrants().find((r) => r.properties.description.includes(stray.uid))!;
    assert.deepEqual(sweep.strayIdentities?.map((i) => [i.cloud, i.kind, i.name, i.uid, i.cluster, i.workspace]),
      [['azure', 'Blob role assignment', `otheracct/b (${grant.id})`, stray.uid, 'gone', 'ws-test']]);
    await provider.terminateInstances({ uid: stray.uid });
    assert.deepEqual((await findLeaked([env], 'ws-test')).strayIdentities ?? [], []);
    const down = await downWithProof(env, owned.row!);
    assert.ok(down.confirmed, down.reason);
  });
});
