// The Azure managed-jobs controller role's pieces that need no cloud: its action lists (no
// role-assignment write or delete), the "is it still exactly ours" check, and the controller
// VM sizes (named, never picked by shape; Arm64 ones boot the Arm64 image).
import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { CONTROLLER_ACTIONS, CONTROLLER_ROLE_NAME, controllerRoleName, CONTROLLER_SUBSCRIPTION_ACTIONS, isExactly, JOBS_IDENTITY_ACTIONS } from '../../../src/core/clouds/azure/controllerRole';
import { AUTOSTOP_ACTIONS, autostopRoleGuid } from '../../../src/core/clouds/azure/autostopRole';
import { isArm64Size, pickSize } from '../../../src/core/clouds/azure/vm';
import { controllerUidOfJobsIdentity, isJobsGroupName, jobsGroupName } from '../../../src/core/clouds/azure/names';
import { AZURE_SHIPPED } from '../../../src/core/catalog/azureShipped';
import { fittingTypes } from '../../../src/core/catalog';
import { PriceBook } from '../../../src/core/cost/priceBook';

const SUB = '00000000-0000-0000-0000-00000000beef';
const def = (actions: string[], extra: Record<string, unknown> = {}, scopes = [`/subscriptions/${SUB}`]) => ({
  properties: { roleName: CONTROLLER_ROLE_NAME, permissions: [{ actions, notActions: [], dataActions: [], notDataActions: [], ...extra }], assignableScopes: scopes },
});

describe('azure: the managed-jobs controller role', () => {
  it('lists each action once, without wildcards, and nothing of role definitions (it cannot widen itself)', () => {
    for (const list of [CONTROLLER_ACTIONS, CONTROLLER_SUBSCRIPTION_ACTIONS]) {
      assert.equal(new Set(list.map((a) => a.toLowerCase())).size, list.length);
      for (const a of list) assert.doesNotMatch(a, /\*/, a);
    }
    // The jobs group's role: compute and network, and reading the group; no role assignment, no group write or delete.
    assert.deepEqual(CONTROLLER_ACTIONS.filter((a) => a.startsWith('Microsoft.Authorization/') || a.startsWith('Microsoft.Resources/')),
      ['Microsoft.Resources/subscriptions/resourceGroups/read']);
    assert.deepEqual([...new Set(CONTROLLER_ACTIONS.map((a) => a.split('/')[0]))].sort(), ['Microsoft.Compute', 'Microsoft.Network', 'Microsoft.Resources']);
    assert.deepEqual(CONTROLLER_SUBSCRIPTION_ACTIONS.filter((a) => /virtualMachines|disks|networkInterfaces|publicIPAddresses|networkSecurityGroups|virtualNetworks|resourceGroups/i.test(a)), []);
  });

  it('the subscription role is reads only: no role-assignment write or delete (every Blob grant is made from this machine at submit), and no condition to narrow them', () => {
    assert.deepEqual(CONTROLLER_SUBSCRIPTION_ACTIONS.filter((a) => !a.endsWith('/read')), []);
    assert.deepEqual([...CONTROLLER_ACTIONS, ...CONTROLLER_SUBSCRIPTION_ACTIONS, ...JOBS_IDENTITY_ACTIONS].filter((a) => a.startsWith('Microsoft.Authorization/')),
      ['Microsoft.Authorization/roleAssignments/read']);
  });

  it('holds no managed-identity action on the subscription: reading and attaching identities is its jobs identity\'s role, at that identity only', () => {
    assert.deepEqual(CONTROLLER_ACTIONS.filter((a) => /ManagedIdentity/i.test(a)), []);
    assert.deepEqual(CONTROLLER_SUBSCRIPTION_ACTIONS.filter((a) => /ManagedIdentity/i.test(a)), []);
    assert.deepEqual(JOBS_IDENTITY_ACTIONS, ['Microsoft.ManagedIdentity/userAssignedIdentities/read', 'Microsoft.ManagedIdentity/userAssignedIdentities/assign/action']);
  });

  it('"Skydeck autostop" holds only listing and deallocating VMs: no runCommand, write, delete or extensions; its GUID is the subscription\'s own', () => {
    assert.deepEqual([...AUTOSTOP_ACTIONS].sort(), ['Microsoft.Compute/virtualMachines/deallocate/action', 'Microsoft.Compute/virtualMachines/read']);
    assert.match(autostopRoleGuid(SUB), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(autostopRoleGuid(SUB), autostopRoleGuid(SUB.toUpperCase()));
    assert.notEqual(autostopRoleGuid(SUB), controllerRoleName(SUB));
    assert.notEqual(autostopRoleGuid(SUB), autostopRoleGuid('11111111-0000-0000-0000-000000000000'));
  });

  it('a definition is ours only with exactly the list at the subscription; widened, narrowed or re-scoped ones are set back', () => {
    assert.ok(isExactly(def([...CONTROLLER_ACTIONS].reverse()), SUB), 'order does not matter');
    assert.ok(!isExactly(def([...CONTROLLER_ACTIONS, '*']), SUB));
    assert.ok(!isExactly(def(CONTROLLER_ACTIONS.slice(1)), SUB));
    assert.ok(!isExactly(def([...CONTROLLER_ACTIONS], { dataActions: ['Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read'] }), SUB));
    assert.ok(!isExactly(def([...CONTROLLER_ACTIONS], {}, [`/subscriptions/${SUB}`, '/subscriptions/other']), SUB));
    assert.ok(!isExactly(undefined, SUB));
  });

  it('names a new definition by a GUID of the subscription (the same every time)', () => {
    assert.match(controllerRoleName(SUB), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(controllerRoleName(SUB), controllerRoleName(SUB.toUpperCase()));
    assert.notEqual(controllerRoleName(SUB), controllerRoleName('11111111-0000-0000-0000-000000000000'));
  });
});

describe('azure: the controller VM sizes in the catalog', () => {
  const placement = (over: { instanceType?: string } = {}) => ({ cloud: 'azure', region: 'eastus', useSpot: false, ...over });

  it('Standard_B2s and Standard_B2pls_v2 resolve by name with their shape and price', () => {
    const b2s = AZURE_SHIPPED.find((t) => t.name === 'Standard_B2s')!;
    const b2pls = AZURE_SHIPPED.find((t) => t.name === 'Standard_B2pls_v2')!;
    assert.deepEqual([b2s.vcpus, b2s.memoryGb, b2s.price, b2s.arch], [2, 4, 0.0416, 'x86_64']);
    assert.deepEqual([b2pls.vcpus, b2pls.memoryGb, b2pls.price, b2pls.arch], [2, 4, 0.034, 'arm64']);
    assert.equal(pickSize(placement({ instanceType: 'Standard_B2s' }), {}), 'Standard_B2s');
    const book = new PriceBook(path.join(os.tmpdir(), 'skydeck-no-catalog-here'));
    assert.deepEqual(book.nodePrice({ cloud: 'azure', type: 'Standard_B2pls_v2', spot: false }), { usdPerHour: 0.034, source: 'shipped table', asOf: (book.nodePrice({ cloud: 'azure', type: 'Standard_D2s_v5', spot: false }) as { asOf: string }).asOf });
  });

  it('never picks a burstable size for a shape, from the shipped table or a location listing that has them', () => {
    assert.equal(pickSize(placement(), { cpus: { min: 2, orMore: true } }), 'Standard_D2s_v5');
    assert.equal(pickSize(placement(), { memory: { min: 4, orMore: true } }), 'Standard_D2s_v5');
    assert.ok(!fittingTypes(AZURE_SHIPPED, { cpus: { min: 2, orMore: false } }).some((t) => t.name.startsWith('Standard_B')));
    // A fetched listing carries no namedOnly mark, only prices joined from the shipped table.
    const listed = AZURE_SHIPPED.map(({ namedOnly: _n, ...t }) => t);
    assert.equal(pickSize(placement(), { cpus: { min: 2, orMore: true } }, listed), 'Standard_D2s_v5');
  });

  it('tells Arm64 sizes by the "p" among their feature letters', () => {
    for (const s of ['Standard_B2pls_v2', 'Standard_D4ps_v5', 'Standard_E2pds_v5']) assert.ok(isArm64Size(s), s);
    for (const s of ['Standard_B2s', 'Standard_D2s_v5', 'Standard_NC24ads_A100_v4', 'Standard_NC4as_T4_v3', 'Standard_F4s_v2']) assert.ok(!isArm64Size(s), s);
  });
});

describe('azure: a controller\'s jobs group name', () => {
  it('is made from the controller\'s uid, and only that form is taken back (a jobs identity from the node\'s environment, a sweep\'s id)', () => {
    const uid = '0b6f3a1e-5c1d-4e55-9d2b-6a1f0c3e8d77';
    assert.equal(jobsGroupName(uid), `skydeck-${uid}-jobs`);
    assert.ok(isJobsGroupName(jobsGroupName(uid)));
    for (const bad of ['skydeck-x/../y-jobs', 'user-rg', `skydeck-${uid}`, 'skydeck--jobs', `skydeck-${uid}-jobs/providers/x`, `skydeck-${'a'.repeat(65)}-jobs`]) assert.ok(!isJobsGroupName(bad), bad);
    assert.throws(() => jobsGroupName('../x'));
    assert.equal(controllerUidOfJobsIdentity(`/subscriptions/${SUB}/resourceGroups/skydeck-${uid}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/skydeck-jobs`), uid);
    for (const bad of [
      `/subscriptions/${SUB}/resourceGroups/user-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/skydeck-jobs`,
      `/subscriptions/${SUB}/resourceGroups/skydeck-${uid}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/my-admin`,
      `/subscriptions/${SUB}/resourceGroups/skydeck-a/b/providers/Microsoft.ManagedIdentity/userAssignedIdentities/skydeck-jobs`,
      `/subscriptions/${SUB}/resourceGroups/skydeck-${uid}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/skydeck-jobs/../x`,
    ]) assert.equal(controllerUidOfJobsIdentity(bad), undefined, bad);
  });
});
