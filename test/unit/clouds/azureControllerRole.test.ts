// The Azure managed-jobs controller role's pieces that need no cloud: its action list, the
// condition on its role assignments, the "is it still exactly ours" check, and the controller
// VM sizes (named, never picked by shape; Arm64 ones boot the Arm64 image).
import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { CONTROLLER_ACTIONS, CONTROLLER_ROLE_NAME, controllerCondition, controllerRoleName, CONTROLLER_SUBSCRIPTION_ACTIONS, isExactly, JOBS_IDENTITY_ACTIONS } from '../../../src/core/clouds/azure/controllerRole';
import { customRoleGuid } from '../../../src/core/clouds/azure/customRole';
import { AUTOSTOP_ACTIONS, autostopRoleGuid } from '../../../src/core/clouds/azure/autostopRole';
import { conditionAllows, parseCondition } from '../../support/fakes/azureFake/condition';
import { ROLE_BLOB_CONTRIBUTOR } from '../../../src/core/clouds/azure/bucketGrants';
import { ROLE_CONTRIBUTOR, ROLE_VM_CONTRIBUTOR } from '../../../src/core/clouds/azure/identity';
import { isArm64Size, pickSize } from '../../../src/core/clouds/azure/vm';
import { controllerUidOfJobsIdentity, isJobsGroupName, jobsGroupName } from '../../../src/core/clouds/azure/names';
import { AZURE_SHIPPED } from '../../../src/core/catalog/azureShipped';
import { fittingTypes } from '../../../src/core/catalog';
import { PriceBook } from '../../../src/core/cost/priceBook';

const OWNER = '8e3af657-a8ff-443c-a75c-2fe8c4bcb635';
const USER_ACCESS_ADMIN = '18d7d88d-d35e-4fb5-a5c3-7773c20a72d9';
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
    // The subscription's: reads, and the role assignments its condition narrows.
    assert.deepEqual(CONTROLLER_SUBSCRIPTION_ACTIONS.filter((a) => !a.endsWith('/read')), ['Microsoft.Authorization/roleAssignments/write', 'Microsoft.Authorization/roleAssignments/delete']);
    assert.deepEqual(CONTROLLER_SUBSCRIPTION_ACTIONS.filter((a) => /virtualMachines|disks|networkInterfaces|publicIPAddresses|networkSecurityGroups|virtualNetworks|resourceGroups/i.test(a)), []);
  });

  it('holds no managed-identity action on the subscription: reading and attaching identities is its jobs identity\'s role, at that identity only, which its condition does not let it assign', () => {
    assert.deepEqual(CONTROLLER_ACTIONS.filter((a) => /ManagedIdentity/i.test(a)), []);
    assert.deepEqual(JOBS_IDENTITY_ACTIONS, ['Microsoft.ManagedIdentity/userAssignedIdentities/read', 'Microsoft.ManagedIdentity/userAssignedIdentities/assign/action']);
    const RA = 'Microsoft.Authorization/roleAssignments';
    const jobsRole = `/subscriptions/${SUB}/providers/Microsoft.Authorization/roleDefinitions/${customRoleGuid('skydeck-jobs-identity-user', SUB)}`;
    assert.ok(!conditionAllows(controllerCondition(SUB), { action: `${RA}/write`, request: { [`${RA}:RoleDefinitionId`]: jobsRole, [`${RA}:PrincipalType`]: 'ServicePrincipal' }, resource: {} }));
    assert.ok(!conditionAllows(controllerCondition(SUB), { action: `${RA}/delete`, request: {}, resource: { [`${RA}:RoleDefinitionId`]: jobsRole } }), 'nor delete its own');
  });

  it('its assignment may create only Blob and "Skydeck autostop" grants to service principals, and delete only those, VM Contributor (older versions\' autostop) and Contributor ones', () => {
    const c = controllerCondition(SUB);
    const write = /ActionMatches\{'Microsoft\.Authorization\/roleAssignments\/write'\}\)\) OR \(([^)]*)\)/.exec(c)?.[1] ?? '';
    const del = /ActionMatches\{'Microsoft\.Authorization\/roleAssignments\/delete'\}\)\) OR \(([^)]*)\)/.exec(c)?.[1] ?? '';
    const guids = (s: string) => (/\{([^}]*)\}/.exec(s)?.[1] ?? '').split(',').map((x) => x.trim()).sort();
    assert.deepEqual(guids(write), [autostopRoleGuid(SUB), ROLE_BLOB_CONTRIBUTOR].sort());
    assert.match(write, /@Request\[Microsoft\.Authorization\/roleAssignments:PrincipalType\] ForAnyOfAnyValues:StringEqualsIgnoreCase \{'ServicePrincipal'\}/);
    assert.deepEqual(guids(del), [autostopRoleGuid(SUB), ROLE_VM_CONTRIBUTOR, ROLE_BLOB_CONTRIBUTOR, ROLE_CONTRIBUTOR].sort());
    assert.match(del, /^@Resource\[/);
    for (const never of [OWNER, USER_ACCESS_ADMIN]) assert.ok(!c.includes(never));
    assert.ok(!guids(write).includes(ROLE_CONTRIBUTOR), 'Contributor on a group would open everything but role assignments');
    assert.ok(!guids(write).includes(ROLE_VM_CONTRIBUTOR), 'VM Contributor given to itself anywhere: runCommand on any VM, acting as its identities');
    assert.notEqual(controllerCondition('11111111-0000-0000-0000-000000000000'), c, 'the autostop role is named by the subscription\'s own GUID');
  });

  it('the condition, evaluated as Azure does, allows writing Blob and autostop grants only and refuses VM Contributor, Contributor, Owner and other subscriptions\' autostop roles', () => {
    const RA = 'Microsoft.Authorization/roleAssignments';
    const c = controllerCondition(SUB);
    const role = (g: string) => `/subscriptions/${SUB}/providers/Microsoft.Authorization/roleDefinitions/${g}`;
    const write = (g: string, principalType = 'ServicePrincipal') => conditionAllows(c, { action: `${RA}/write`, request: { [`${RA}:RoleDefinitionId`]: role(g), [`${RA}:PrincipalType`]: principalType }, resource: {} });
    const del = (g: string) => conditionAllows(c, { action: `${RA}/delete`, request: {}, resource: { [`${RA}:RoleDefinitionId`]: role(g) } });
    assert.ok(write(autostopRoleGuid(SUB)));
    assert.ok(write(ROLE_BLOB_CONTRIBUTOR));
    const subRole = customRoleGuid('skydeck-jobs-controller-subscription', SUB);
    for (const g of [ROLE_VM_CONTRIBUTOR, ROLE_CONTRIBUTOR, OWNER, USER_ACCESS_ADMIN, controllerRoleName(SUB), subRole, autostopRoleGuid('11111111-0000-0000-0000-000000000000')]) assert.ok(!write(g), g);
    assert.ok(!write(autostopRoleGuid(SUB), 'User'));
    for (const g of [autostopRoleGuid(SUB), ROLE_BLOB_CONTRIBUTOR, ROLE_VM_CONTRIBUTOR, ROLE_CONTRIBUTOR]) assert.ok(del(g), g);
    for (const g of [controllerRoleName(SUB), subRole, OWNER]) assert.ok(!del(g), g);
    assert.ok(conditionAllows(c, { action: 'Microsoft.Compute/virtualMachines/write', request: {}, resource: {} }), 'other actions are not the condition\'s');
    // The fake refuses a form it does not model instead of reading it as true.
    for (const bad of [`${c} OR true`, c.replace('GuidEquals', 'GuidNotEquals'), c.replace(':PrincipalType]', ':PrincipalId]'), `${c})`]) assert.throws(() => parseCondition(bad), /condition not modelled/);
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
