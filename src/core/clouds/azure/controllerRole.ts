// What a managed-jobs controller VM may do with its own identity (the cluster's user-assigned
// identity, the one Blob mounts use: bucketIdentity.ts): launch, deallocate, start, delete and
// list job clusters the way this provider does, and no more. All its job clusters live in ONE
// resource group made for it by this machine before its VM exists (names.ts jobsGroupName,
// bucketIdentity.ts ensureJobsGroup), and the custom role "Skydeck jobs controller" (the
// compute and network actions below, CONTROLLER_ACTIONS) is assigned to its identity at THAT
// group only: RBAC has no tag conditions, but an assignment's scope is enforced, so the VM
// reaches no VM, disk, NIC, IP, NSG or VNet of any other group (ARM answers 403
// AuthorizationFailed; the ARM fake evaluates the scope: jobsGroup.test.ts). What ARM answers
// at the subscription's own URLs is in a second role, "Skydeck jobs lookups and grants"
// (CONTROLLER_SUBSCRIPTION_ACTIONS), assigned there: reads only, and role assignments under the
// condition below. Call → action (ARM checks the linked ones too):
//   resourceGroups.get (its jobs group is there)       → Microsoft.Resources/subscriptions/resourceGroups/read (group)
//   resources.list (storage accounts of Blob mounts)  → Microsoft.Resources/subscriptions/resources/read (subscription)
//   virtualMachines.createOrUpdate / list / listAll / instanceView / deallocate / start / delete
//       → Microsoft.Compute/virtualMachines/{write,read,instanceView/read,deallocate/action,start/action,delete}
//   its implicit OS disk (created by the VM's PUT), disks.listByResourceGroup / delete
//       → Microsoft.Compute/disks/{write,read,delete}
//   resourceSkus.list (the location's catalog)       → Microsoft.Compute/skus/read (subscription)
//   long-running operations polled (compute: Azure-AsyncOperation, then Location)
//       → Microsoft.Compute/locations/{operations,operationResults}/read (subscription)
//   (every ...AndWait create ends with a GET of what it made: read, for each kind below)
//   networkSecurityGroups.createOrUpdate, the subnet naming it → .../networkSecurityGroups/{write,read,join/action}
//   securityRules.list / createOrUpdate (openPorts)   → .../networkSecurityGroups/securityRules/{read,write}
//   virtualNetworks.createOrUpdate, a NIC in its subnet → .../virtualNetworks/{write,read}, .../virtualNetworks/subnets/join/action
//   publicIPAddresses.createOrUpdate / list / delete, a NIC naming one → .../publicIPAddresses/{write,read,delete,join/action}
//   networkInterfaces.createOrUpdate / list / delete, a VM naming one → .../networkInterfaces/{write,read,delete,join/action}
//   long-running operations polled (network)          → Microsoft.Network/locations/{operations,operationResults}/read (subscription)
//   (no userAssignedIdentities action here: job clusters carry the controller's one jobs
//   identity, which it reads and attaches through its second role, below)
//   roleAssignments list / GET / PUT / DELETE (Blob grants on the user's containers, which sit
//   outside any group Skydeck makes) → Microsoft.Authorization/roleAssignments/{read,write,delete} (subscription)
//   a job cluster's end: its VMs, then its own VNet and NSG in the shared group (terminate.ts);
//   the group itself it may neither make nor delete (this machine does both).
// Its second role, "Skydeck jobs identity user" (JOBS_IDENTITY_ACTIONS: userAssignedIdentities
// read and assign/action, nothing else), is assigned to it at ONE identity's scope: its jobs
// identity (bucketIdentity.ts), which this machine makes in the controller's group when it
// launches the controller. Job clusters it launches carry that identity for their Blob mounts
// (their grants tagged as the controller's, revoked at its down); autostop heads deallocate as
// their system-assigned identity (identity.ts), which needs no assign/action.
// Narrowed where Azure can: the assignment carries an ABAC condition (role assignment
// delegation) so the identity may only CREATE assignments of Storage Blob Data Contributor
// (Blob grants) and of the subscription's custom role "Skydeck autostop" (autostopRole.ts: read
// and deallocate VMs, nothing else; a job cluster's head deallocating itself), named by its
// definition GUID, which is the subscription's own, to service principals only; and DELETE only
// assignments of those, of Virtual Machine Contributor (what older versions gave autostop heads)
// and of Contributor (an autodown cluster's group grant goes with its group; ARM may check each
// assignment a group's delete takes, the fake does). It cannot delete its own assignment (the
// custom role), nor give anyone Owner, Contributor, Virtual Machine Contributor or this role. No
// roleDefinitions action: it can neither widen its own role nor "Skydeck autostop" (the laptop
// makes both and sets them back at each controller launch).
// Closed: until now the role held userAssignedIdentities write, delete and assign/action on the
// subscription (job clusters made their own identity), so the VM could attach ANY user-assigned
// identity of the subscription (the user's, another cluster's) to a VM it made and act as it; a
// condition cannot narrow assign/action. Now it holds assign/action on its jobs identity alone
// (ARM's linked check on a VM's identity is made at the identity's scope: 403
// LinkedAuthorizationFailed for any other), and may create or delete none. A controller
// launched by an older version keeps the wide role until this machine starts it again (which
// sets the role back to this list and makes the jobs identity); its job clusters made then hold
// their own identity in their group, whose delete the controller may no longer make (no
// userAssignedIdentities/delete): down those from this machine.
// Closed before: the condition let it create Virtual Machine Contributor assignments, which,
// having no scope or principal attribute to limit them, it could give itself anywhere in the
// subscription — runCommand on any VM, i.e. acting as that VM's identities. The autostop role in
// its place gives it nothing its own role lacks (VM read and deallocate). A controller launched
// by an older version keeps the older condition (and its job heads VM Contributor, identity.ts)
// until this machine starts it again (after its idle autostop) or relaunches it, which re-puts
// the assignment with this condition.
// Closed: until now "Skydeck jobs controller" was assigned on the whole subscription (job
// clusters made their own groups), so the VM could deallocate or delete any VM, disk or network
// of the subscription. When this machine starts an older controller again, grantController
// puts the group and subscription assignments and deletes that subscription-wide one. Job
// clusters an older controller made in their own groups are out of its reach now (down them
// from this machine). Job clusters in the shared group get no autostop (a head's role on the
// group would reach every job cluster's VMs): refused before anything is made.
// Known limits: the VM may do anything the role allows to anything in its jobs group (any job
// cluster's VMs, including ones it did not launch there, and what a user puts there by hand);
// the assignments it may make are limited by role and principal type, not by scope or
// principal (a condition has no attribute for either), so it could give itself or another
// service principal Blob Data Contributor on any container of the subscription (all Blob data
// of its storage accounts), its jobs identity included (narrowing this to its jobs' storage
// accounts would need the grant scope known at submit, which an Azure bucket named by `name:`
// is not: its account is resolved at launch on the VM); its subscription reads see the names,
// types and tags of every resource (resources.list) and VM sizes; all its job clusters share
// the jobs identity, so a job cluster's nodes read every container granted to any job of the
// controller. Until then the VM's software is trusted as this machine's CLI is. A job cluster with autodown (its head needs Contributor)
// cannot be launched by the controller (Azure refuses the grant). The list is checked against
// the ARM fake, which models the linked checks above and evaluates the condition's form; a real
// VM create with an extension or a marketplace plan would need more.
import { ProviderError } from '../provider';
import type { AzureClients } from './clients';
import { CONTROLLER_MARK, grantDescription, ROLE_BLOB_CONTRIBUTOR } from './bucketGrants';
import { azureCode, isNotFound, toAzureError } from './errors';
import { assignmentId, putAssignment, ROLE_ASSIGNMENTS_API, ROLE_CONTRIBUTOR, ROLE_VM_CONTRIBUTOR } from './identity';
import { autostopRoleGuid, ensureAutostopRole } from './autostopRole';
import { customRoleGuid, customRoleNames, ensureCustomRole, grantsExactly, type CustomRoleSpec } from './customRole';

export { ROLE_DEFINITIONS_API } from './customRole';
export const CONTROLLER_ROLE_NAME = 'Skydeck jobs controller';

const RG = 'Microsoft.Resources/subscriptions/resourceGroups';
const VM = 'Microsoft.Compute/virtualMachines';
const NET = 'Microsoft.Network';
const MI = 'Microsoft.ManagedIdentity/userAssignedIdentities';
const RA = 'Microsoft.Authorization/roleAssignments';

/**
 * Exactly the actions above that touch a job cluster's resources; no wildcard. Assigned at the
 * controller's jobs group ONLY (names.ts jobsGroupName: made by this machine before the VM), so
 * they hold for the VMs, disks, NICs, IPs, NSGs and VNets in that group and nowhere else. No
 * resource-group write or delete: the group is this machine's to make and to delete (at the
 * controller's down); its read lets the VM see that the group is there.
 */
export const CONTROLLER_ACTIONS: readonly string[] = [
  `${RG}/read`,
  `${VM}/read`, `${VM}/write`, `${VM}/delete`, `${VM}/instanceView/read`, `${VM}/deallocate/action`, `${VM}/start/action`,
  'Microsoft.Compute/disks/read', 'Microsoft.Compute/disks/write', 'Microsoft.Compute/disks/delete',
  `${NET}/networkSecurityGroups/read`, `${NET}/networkSecurityGroups/write`, `${NET}/networkSecurityGroups/delete`, `${NET}/networkSecurityGroups/join/action`,
  `${NET}/networkSecurityGroups/securityRules/read`, `${NET}/networkSecurityGroups/securityRules/write`,
  `${NET}/virtualNetworks/read`, `${NET}/virtualNetworks/write`, `${NET}/virtualNetworks/delete`, `${NET}/virtualNetworks/subnets/join/action`,
  `${NET}/publicIPAddresses/read`, `${NET}/publicIPAddresses/write`, `${NET}/publicIPAddresses/delete`, `${NET}/publicIPAddresses/join/action`,
  `${NET}/networkInterfaces/read`, `${NET}/networkInterfaces/write`, `${NET}/networkInterfaces/delete`, `${NET}/networkInterfaces/join/action`,
];

/**
 * What must stay at the subscription, read-only but for the role assignments (under the
 * condition below): the location's VM sizes (skus), the long-running operations ARM answers
 * at subscription-level URLs, the storage accounts of Blob mounts (resources.list: names,
 * types and tags only), and role assignments: read (grants are found by listing the
 * subscription), write and delete of Blob grants on containers, which sit in the user's
 * storage accounts, outside any group Skydeck makes.
 */
export const CONTROLLER_SUBSCRIPTION_ACTIONS: readonly string[] = [
  'Microsoft.Resources/subscriptions/resources/read', 'Microsoft.Compute/skus/read',
  'Microsoft.Compute/locations/operations/read', 'Microsoft.Compute/locations/operationResults/read',
  `${NET}/locations/operations/read`, `${NET}/locations/operationResults/read`,
  `${RA}/read`, `${RA}/write`, `${RA}/delete`,
];
export const CONTROLLER_SUBSCRIPTION_ROLE_NAME = 'Skydeck jobs lookups and grants';
const CONTROLLER_SUBSCRIPTION_ROLE: CustomRoleSpec = {
  roleName: CONTROLLER_SUBSCRIPTION_ROLE_NAME, seed: 'skydeck-jobs-controller-subscription', actions: CONTROLLER_SUBSCRIPTION_ACTIONS,
  description: 'Skydeck managed-jobs controller VMs: look up sizes, operations and storage accounts; Blob grants (set by Skydeck; edits are set back)',
  what: 'a managed-jobs controller', fix: 'or put the controller on this machine (jobs.controller: local)',
};

const CONTROLLER_ROLE: CustomRoleSpec = {
  roleName: CONTROLLER_ROLE_NAME, seed: 'skydeck-jobs-controller', actions: CONTROLLER_ACTIONS,
  description: 'Skydeck managed-jobs controller VMs: launch, stop, start and delete job clusters (set by Skydeck; edits are set back)',
  what: 'a managed-jobs controller', fix: 'or put the controller on this machine (jobs.controller: local)',
};

/**
 * What the controller's identity holds on its one jobs identity (bucketIdentity.ts
 * ensureJobsIdentity), assigned at that identity's own scope: read it (its principal id, for
 * Blob grants) and attach it to the job clusters' VMs it creates. The built-in Managed Identity
 * Operator holds more (deployments, support tickets, alert rules), so a custom role.
 */
export const JOBS_IDENTITY_ROLE_NAME = 'Skydeck jobs identity user';
export const JOBS_IDENTITY_ACTIONS: readonly string[] = [`${MI}/read`, `${MI}/assign/action`];
const JOBS_IDENTITY_ROLE: CustomRoleSpec = {
  roleName: JOBS_IDENTITY_ROLE_NAME, seed: 'skydeck-jobs-identity-user', actions: JOBS_IDENTITY_ACTIONS,
  description: 'Skydeck managed-jobs controller VMs: attach their one jobs identity to job clusters (set by Skydeck; edits are set back)',
  what: 'a managed-jobs controller', fix: 'or put the controller on this machine (jobs.controller: local)',
};

/** The subscription's jobs-identity role: found by name or created, set back when changed. Returns its id. */
export function ensureJobsIdentityRole(c: AzureClients, lro: { updateIntervalInMs: number }, log?: (m: string) => void): Promise<string> {
  return ensureCustomRole(c, JOBS_IDENTITY_ROLE, lro, log);
}

/** Role GUIDs the controller may assign (write) in a subscription: Blob grants and the subscription's autostop role. */
export function controllerAssignable(subscription: string): string[] {
  return [ROLE_BLOB_CONTRIBUTOR, autostopRoleGuid(subscription)];
}

/** ...and whose assignments it may delete: those, and what older versions and autodown clusters hold. */
export function controllerDeletable(subscription: string): string[] {
  return [...controllerAssignable(subscription), ROLE_VM_CONTRIBUTOR, ROLE_CONTRIBUTOR];
}

/** The assignment's ABAC condition (version 2.0): which role assignments it may write and delete. */
export function controllerCondition(subscription: string): string {
  const write = `@Request[${RA}:RoleDefinitionId] ForAnyOfAnyValues:GuidEquals {${controllerAssignable(subscription).join(', ')}}`
    + ` AND @Request[${RA}:PrincipalType] ForAnyOfAnyValues:StringEqualsIgnoreCase {'ServicePrincipal'}`;
  const del = `@Resource[${RA}:RoleDefinitionId] ForAnyOfAnyValues:GuidEquals {${controllerDeletable(subscription).join(', ')}}`;
  return `((!(ActionMatches{'${RA}/write'})) OR (${write})) AND ((!(ActionMatches{'${RA}/delete'})) OR (${del}))`;
}

/** The role's GUID name when Skydeck creates it: the same for a subscription every time. */
export function controllerRoleName(subscription: string): string {
  return customRoleGuid(CONTROLLER_ROLE.seed, subscription);
}

/** Whether a definition grants exactly the list (any order) and nothing else. */
export function isExactly(def: Parameters<typeof grantsExactly>[0], subscription: string): boolean {
  return grantsExactly(def, CONTROLLER_ACTIONS, subscription);
}

/** The role's names: the plain one, and the subscription's own when another subscription of the tenant holds the plain one. */
export function controllerRoleNames(subscription: string): [string, string] {
  return customRoleNames(CONTROLLER_ROLE_NAME, subscription);
}

/** The subscription's controller role: found by name or created, set back to exactly the list when changed. Returns its id. */
export function ensureControllerRole(c: AzureClients, lro: { updateIntervalInMs: number }, log?: (m: string) => void): Promise<string> {
  return ensureCustomRole(c, CONTROLLER_ROLE, lro, log);
}

/**
 * The controller's assignments: "Skydeck jobs controller" at its jobs group alone, and the
 * lookups-and-grants role on the subscription with its condition; returns the group one's id.
 * An older version's assignment of the controller role on the whole subscription is deleted
 * once the narrow one is in place (with the role set back to the narrow list it would still
 * reach every group). The autostop role is made (or set back) here too, by this machine's
 * credentials: the condition names it, the controller may never define it.
 */
export async function grantController(
  c: AzureClients, principalId: string, tags: Record<string, string>, jobsGroup: string, lro: { updateIntervalInMs: number }, log?: (m: string) => void,
): Promise<string> {
  const role = (await ensureControllerRole(c, lro, log)).split('/').pop()!;
  const subRole = (await ensureCustomRole(c, CONTROLLER_SUBSCRIPTION_ROLE, lro, log)).split('/').pop()!;
  await ensureAutostopRole(c, lro, log);
  const sub = `/subscriptions/${c.subscriptionId}`;
  const description = grantDescription(tags, CONTROLLER_MARK);
  try {
    const id = await putAssignment({ c, principalId, lro, description, newRole: true }, `${sub}/resourceGroups/${jobsGroup}`, role);
    await putAssignment({ c, principalId, lro, description, newRole: true, condition: controllerCondition(c.subscriptionId) }, sub, subRole);
    const wide = assignmentId(sub, principalId, role);
    await c.resources.resources.beginDeleteByIdAndWait(wide.slice(1), ROLE_ASSIGNMENTS_API, lro).catch((e) => {
      if (!isNotFound(e)) throw e;
    });
    return id;
  } catch (e) {
    const { code, message } = azureCode(e);
    if (code === 'AuthorizationFailed') {
      throw new ProviderError('auth', `a managed-jobs controller on Azure: your account may not assign "${CONTROLLER_ROLE_NAME}" on ${jobsGroup} or "${CONTROLLER_SUBSCRIPTION_ROLE_NAME}" on subscription ${c.subscriptionId} (${message})`,
        'creating a role assignment needs Owner, User Access Administrator or Role Based Access Control Administrator on the subscription');
    }
    throw toAzureError(e, 'roleAssignments.create');
  }
}
