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
// (CONTROLLER_SUBSCRIPTION_ACTIONS; the name is kept so an older controller's role is found and
// set back), assigned there: reads only. Call → action (ARM checks the linked ones too):
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
//   roleAssignments list (that its jobs identity holds the Blob grants a job cluster mounts
//   with: bucketGrants.ts missingBlobGrants) → Microsoft.Authorization/roleAssignments/read (subscription)
//   a job cluster's end: its VMs, then its own VNet and NSG in the shared group (terminate.ts);
//   the group itself it may neither make nor delete (this machine does both).
// Its second role, "Skydeck jobs identity user" (JOBS_IDENTITY_ACTIONS: userAssignedIdentities
// read and assign/action, nothing else), is assigned to it at ONE identity's scope: its jobs
// identity (bucketIdentity.ts), which this machine makes in the controller's group when it
// launches the controller. Job clusters it launches carry that identity for their Blob mounts.
// The VM makes and deletes NO role assignment: every Blob grant its job clusters mount with is
// made from this machine, with the user's credentials, when the job is submitted
// (managed/remote/controllerBuckets.ts: the containers the job's tasks mount, by URL or by
// `name:`, to the controller's identity and its jobs identity; azure/bucketGrant.ts), tagged as
// the controller's and revoked at its down; on the VM a launch or a reuse only checks that the
// jobs identity holds them (bucketIdentity.ts checkJobsIdentity, bucketGrant.ts) and refuses,
// naming the containers, when it does not. Job clusters get no autostop or autodown (refused
// before anything is made), so the VM never grants a head a role; nor may it launch a
// controller or delete a stray's grants (both refused: azureProvider.ts). No roleDefinitions action:
// it can neither widen its own role nor "Skydeck autostop" (the laptop makes both and sets them
// back at each controller launch).
// Closed: until now the subscription role held roleAssignments write and delete under an ABAC
// condition limiting the ROLE assigned (Storage Blob Data Contributor, "Skydeck autostop") and
// the principal type, not the scope or the principal (a condition has no attribute for either):
// the VM could give itself or its jobs identity Blob Data Contributor on ANY container of the
// subscription (all Blob data of its storage accounts). It kept that right because a container
// given by `name:` got its storage account at launch on the VM; now this machine resolves it at
// submit as a launch does (AZURE_STORAGE_ACCOUNT, which controllerNodeEnv hands the VM too, so
// both name the same account) and grants it there, and a named container that does not exist
// is refused at submit. A controller launched by an older version keeps write and delete until
// this machine starts it again (after its idle autostop) or relaunches it: ensureCustomRole sets
// the role back to this list and the assignment is re-put without the condition.
// Closed before: until now the role held userAssignedIdentities write, delete and assign/action on the
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
// subscription — runCommand on any VM, i.e. acting as that VM's identities.
// Closed: until now "Skydeck jobs controller" was assigned on the whole subscription (job
// clusters made their own groups), so the VM could deallocate or delete any VM, disk or network
// of the subscription. When this machine starts an older controller again, grantController
// puts the group and subscription assignments and deletes that subscription-wide one. Job
// clusters an older controller made in their own groups are out of its reach now (down them
// from this machine). Job clusters in the shared group get no autostop (a head's role on the
// group would reach every job cluster's VMs): refused before anything is made.
// Known limits: the VM may do anything the role allows to anything in its jobs group (any job
// cluster's VMs, including ones it did not launch there, and what a user puts there by hand);
// its subscription reads see the names, types and tags of every resource (resources.list), VM
// sizes, and every role assignment of the subscription (roleAssignments/read: who holds what,
// where); all its job clusters share the jobs identity, so a job cluster's nodes read every
// container granted to any job of the controller (the union of the containers submitted jobs
// mount, until the controller's down). A job whose containers were not granted at its submit
// (a controller process started with another AZURE_STORAGE_ACCOUNT than this machine's now, a
// grant deleted by hand) is refused at its launch on the VM, not widened there: submit it again.
// Until then the VM's software is trusted as this machine's CLI is. A job cluster with autostop
// or autodown cannot be launched by the controller. The list is checked against the ARM fake,
// which models the linked checks above; a real VM create with an extension or a marketplace
// plan would need more.
import { ProviderError } from '../provider';
import type { AzureClients } from './clients';
import { CONTROLLER_MARK, grantDescription } from './bucketGrants';
import { azureCode, isNotFound, toAzureError } from './errors';
import { assignmentId, putAssignment, ROLE_ASSIGNMENTS_API } from './identity';
import { ensureAutostopRole } from './autostopRole';
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
 * What must stay at the subscription, reads only: the location's VM sizes (skus), the
 * long-running operations ARM answers at subscription-level URLs, the storage accounts of Blob
 * mounts (resources.list: names, types and tags only), and role assignments (that the jobs
 * identity holds its job clusters' Blob grants, found by listing the subscription). No
 * roleAssignments write or delete: this machine makes every grant (at submit) and deletes it.
 */
export const CONTROLLER_SUBSCRIPTION_ACTIONS: readonly string[] = [
  'Microsoft.Resources/subscriptions/resources/read', 'Microsoft.Compute/skus/read',
  'Microsoft.Compute/locations/operations/read', 'Microsoft.Compute/locations/operationResults/read',
  `${NET}/locations/operations/read`, `${NET}/locations/operationResults/read`,
  `${RA}/read`,
];
export const CONTROLLER_SUBSCRIPTION_ROLE_NAME = 'Skydeck jobs lookups and grants';
const CONTROLLER_SUBSCRIPTION_ROLE: CustomRoleSpec = {
  roleName: CONTROLLER_SUBSCRIPTION_ROLE_NAME, seed: 'skydeck-jobs-controller-subscription', actions: CONTROLLER_SUBSCRIPTION_ACTIONS,
  description: 'Skydeck managed-jobs controller VMs: look up sizes, operations, storage accounts and role assignments (set by Skydeck; edits are set back)',
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
 * lookups role on the subscription; returns the group one's id. Both roles are set back to
 * their lists first, and the subscription assignment is put with no condition, which is what
 * narrows an older controller (its role held role-assignment writes under a condition) when
 * this machine starts it again. An older version's assignment of the controller role on the
 * whole subscription is deleted once the narrow one is in place (with the role set back to the
 * narrow list it would still reach every group). The autostop role (its own head's) is made or
 * set back here too, by this machine's credentials: the controller may never define it.
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
    await putAssignment({ c, principalId, lro, description, newRole: true }, sub, subRole);
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
