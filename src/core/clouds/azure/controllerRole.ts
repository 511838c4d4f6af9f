// What a managed-jobs controller VM may do with its own identity (the cluster's user-assigned
// identity, the one Blob mounts use: bucketIdentity.ts): launch, deallocate, start, delete and
// list job clusters the way this provider does, and no more. One custom role per subscription,
// "Skydeck jobs controller", holding exactly the actions of the provider's own ARM calls, is
// assigned to that identity at the subscription (job clusters make their own resource groups,
// so no narrower scope exists before they do). Call → action (ARM checks the linked ones too):
//   resourceGroups.createOrUpdate / get / checkExistence / list / beginDelete
//       → Microsoft.Resources/subscriptions/resourceGroups/{write,read,delete}; the delete's
//       operation polled → Microsoft.Resources/subscriptions/operationresults/read
//   resources.list (storage accounts of Blob mounts)  → Microsoft.Resources/subscriptions/resources/read
//   virtualMachines.createOrUpdate / list / listAll / instanceView / deallocate / start / delete
//       → Microsoft.Compute/virtualMachines/{write,read,instanceView/read,deallocate/action,start/action,delete}
//   its implicit OS disk (created by the VM's PUT), disks.listByResourceGroup / delete
//       → Microsoft.Compute/disks/{write,read,delete}
//   resourceSkus.list (the location's catalog)       → Microsoft.Compute/skus/read
//   long-running operations polled (compute: Azure-AsyncOperation, then Location)
//       → Microsoft.Compute/locations/{operations,operationResults}/read
//   (every ...AndWait create ends with a GET of what it made: read, for each kind below)
//   networkSecurityGroups.createOrUpdate, the subnet naming it → .../networkSecurityGroups/{write,read,join/action}
//   securityRules.list / createOrUpdate (openPorts)   → .../networkSecurityGroups/securityRules/{read,write}
//   virtualNetworks.createOrUpdate, a NIC in its subnet → .../virtualNetworks/{write,read}, .../virtualNetworks/subnets/join/action
//   publicIPAddresses.createOrUpdate / list / delete, a NIC naming one → .../publicIPAddresses/{write,read,delete,join/action}
//   networkInterfaces.createOrUpdate / list / delete, a VM naming one → .../networkInterfaces/{write,read,delete,join/action}
//   long-running operations polled (network)          → Microsoft.Network/locations/{operations,operationResults}/read
//   userAssignedIdentities PUT / GET (Blob mounts), a VM naming one → .../userAssignedIdentities/{write,read,assign/action}
//   roleAssignments list / GET / PUT / DELETE (Blob grants; autostop's grant on the group)
//       → Microsoft.Authorization/roleAssignments/{read,write,delete}
//   a group's delete deletes what is in it, which ARM checks per resource: the deletes above,
//   plus Microsoft.Network/virtualNetworks/delete, .../networkSecurityGroups/delete and
//   Microsoft.ManagedIdentity/userAssignedIdentities/delete.
// Narrowed where Azure can: the assignment carries an ABAC condition (role assignment
// delegation) so the identity may only CREATE assignments of Storage Blob Data Contributor
// (Blob grants) and Virtual Machine Contributor (a job cluster's autostop deallocating itself),
// to service principals only, and DELETE only assignments of those and of Contributor (an
// autodown cluster's group grant goes with its group): it cannot delete its own assignment
// (the custom role), nor give anyone Owner, Contributor or this role. No
// roleDefinitions action: it cannot widen its own role (the laptop's launch sets the role back).
// Known limits (RBAC has no narrower form): the actions hold for every resource of the
// subscription, not only Skydeck's (control-plane RBAC has no tag conditions; only role
// assignments and storage data actions take conditions), so the VM could deallocate or delete
// any VM, disk or network of the subscription, its own included (no deny assignment can be
// made by a user); the assignments it may make are limited by role and principal type, not by
// scope or principal (a condition has no attribute for either), so it could give itself or
// another service principal Blob Data Contributor on any container of the subscription (all
// Blob data of its storage accounts) or Virtual Machine Contributor anywhere in it — itself
// included, which lets it run commands on any VM of the subscription and so act as that VM's
// identity; it may also attach any user-assigned identity of the subscription to a VM it
// creates (assign/action is subscription-wide). A narrow custom role for job clusters'
// autostop in place of Virtual Machine Contributor would close the first; the second has no
// RBAC form. Until then the VM's software is trusted as this machine's CLI is; a job
// cluster with autodown (its head needs Contributor) cannot be launched by the controller
// (Azure refuses the grant). The list is checked against the ARM fake, which models the linked
// checks above; a real VM create with an extension or a marketplace plan would need more. The
// VM's software is trusted as this machine's CLI is.
import { createHash } from 'node:crypto';
import { ProviderError } from '../provider';
import type { AzureClients } from './clients';
import { listById } from './armList';
import { CONTROLLER_MARK, grantDescription, ROLE_BLOB_CONTRIBUTOR } from './bucketGrants';
import { azCall, azureCode, toAzureError } from './errors';
import { putAssignment, ROLE_CONTRIBUTOR, ROLE_VM_CONTRIBUTOR } from './identity';

export const CONTROLLER_ROLE_NAME = 'Skydeck jobs controller';
/** Microsoft.Authorization/roleDefinitions (azure-rest-api-specs: authorization stable 2022-04-01). */
export const ROLE_DEFINITIONS_API = '2022-04-01';

const RG = 'Microsoft.Resources/subscriptions/resourceGroups';
const VM = 'Microsoft.Compute/virtualMachines';
const NET = 'Microsoft.Network';
const MI = 'Microsoft.ManagedIdentity/userAssignedIdentities';
const RA = 'Microsoft.Authorization/roleAssignments';

/** Exactly the actions above; no wildcard. */
export const CONTROLLER_ACTIONS: readonly string[] = [
  `${RG}/read`, `${RG}/write`, `${RG}/delete`, 'Microsoft.Resources/subscriptions/operationresults/read', 'Microsoft.Resources/subscriptions/resources/read',
  `${VM}/read`, `${VM}/write`, `${VM}/delete`, `${VM}/instanceView/read`, `${VM}/deallocate/action`, `${VM}/start/action`,
  'Microsoft.Compute/disks/read', 'Microsoft.Compute/disks/write', 'Microsoft.Compute/disks/delete',
  'Microsoft.Compute/skus/read', 'Microsoft.Compute/locations/operations/read', 'Microsoft.Compute/locations/operationResults/read',
  `${NET}/networkSecurityGroups/read`, `${NET}/networkSecurityGroups/write`, `${NET}/networkSecurityGroups/delete`, `${NET}/networkSecurityGroups/join/action`,
  `${NET}/networkSecurityGroups/securityRules/read`, `${NET}/networkSecurityGroups/securityRules/write`,
  `${NET}/virtualNetworks/read`, `${NET}/virtualNetworks/write`, `${NET}/virtualNetworks/delete`, `${NET}/virtualNetworks/subnets/join/action`,
  `${NET}/publicIPAddresses/read`, `${NET}/publicIPAddresses/write`, `${NET}/publicIPAddresses/delete`, `${NET}/publicIPAddresses/join/action`,
  `${NET}/networkInterfaces/read`, `${NET}/networkInterfaces/write`, `${NET}/networkInterfaces/delete`, `${NET}/networkInterfaces/join/action`,
  `${NET}/locations/operations/read`, `${NET}/locations/operationResults/read`,
  `${MI}/read`, `${MI}/write`, `${MI}/delete`, `${MI}/assign/action`,
  `${RA}/read`, `${RA}/write`, `${RA}/delete`,
];

/** Roles the controller may assign (write) and, with Contributor, delete assignments of. */
export const CONTROLLER_ASSIGNABLE = [ROLE_BLOB_CONTRIBUTOR, ROLE_VM_CONTRIBUTOR];
const DELETABLE = [...CONTROLLER_ASSIGNABLE, ROLE_CONTRIBUTOR];

/** The assignment's ABAC condition (version 2.0): which role assignments it may write and delete. */
export function controllerCondition(): string {
  const write = `@Request[${RA}:RoleDefinitionId] ForAnyOfAnyValues:GuidEquals {${CONTROLLER_ASSIGNABLE.join(', ')}}`
    + ` AND @Request[${RA}:PrincipalType] ForAnyOfAnyValues:StringEqualsIgnoreCase {'ServicePrincipal'}`;
  const del = `@Resource[${RA}:RoleDefinitionId] ForAnyOfAnyValues:GuidEquals {${DELETABLE.join(', ')}}`;
  return `((!(ActionMatches{'${RA}/write'})) OR (${write})) AND ((!(ActionMatches{'${RA}/delete'})) OR (${del}))`;
}

/** The role's GUID name when Skydeck creates it: the same for a subscription every time. */
export function controllerRoleName(subscription: string): string {
  const h = createHash('sha256').update(`skydeck-jobs-controller|${subscription.toLowerCase()}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

type RoleDef = { id?: string; name?: string; properties?: { roleName?: string; permissions?: { actions?: string[]; notActions?: string[]; dataActions?: string[]; notDataActions?: string[] }[]; assignableScopes?: string[] } };

function body(subscription: string, roleName: string): object {
  return { properties: {
    roleName, type: 'CustomRole',
    description: 'Skydeck managed-jobs controller VMs: launch, stop, start and delete job clusters (set by Skydeck; edits are set back)',
    permissions: [{ actions: [...CONTROLLER_ACTIONS], notActions: [], dataActions: [], notDataActions: [] }],
    assignableScopes: [`/subscriptions/${subscription}`],
  } };
}

/** Whether a definition grants exactly the list (any order) and nothing else. */
export function isExactly(def: RoleDef | undefined, subscription: string): boolean {
  const perms = def?.properties?.permissions ?? [];
  const sorted = (a: readonly string[] | undefined) => JSON.stringify([...(a ?? [])].sort());
  const scopes = def?.properties?.assignableScopes ?? [];
  return perms.length === 1 && sorted(perms[0].actions) === sorted(CONTROLLER_ACTIONS) && !perms[0].notActions?.length
    && !perms[0].dataActions?.length && !perms[0].notDataActions?.length
    && scopes.length === 1 && scopes[0].toLowerCase() === `/subscriptions/${subscription}`.toLowerCase();
}

/**
 * The role's names: the plain one, and the subscription's own when another subscription of the
 * tenant holds the plain one (custom role names are unique in a tenant, and a role listed at a
 * subscription shows only roles assignable there).
 */
export function controllerRoleNames(subscription: string): [string, string] {
  return [CONTROLLER_ROLE_NAME, `${CONTROLLER_ROLE_NAME} (${subscription})`];
}

/**
 * The subscription's controller role: found by name or created, and set back to exactly the
 * list when anything widened or changed it. Returns its id.
 */
export async function ensureControllerRole(c: AzureClients, lro: { updateIntervalInMs: number }, log?: (m: string) => void): Promise<string> {
  const sub = c.subscriptionId;
  const base = `subscriptions/${sub}/providers/Microsoft.Authorization/roleDefinitions`;
  const names = controllerRoleNames(sub);
  const filter = encodeURIComponent("type eq 'CustomRole'");
  const found = (await azCall('roleDefinitions.list', () => listById(c, `${base}?$filter=${filter}`, ROLE_DEFINITIONS_API)) as RoleDef[])
    .find((d) => names.includes(d.properties?.roleName ?? ''));
  if (found && isExactly(found, sub)) return found.id!;
  if (found) log?.(`azure: role "${found.properties?.roleName}" was changed; setting its actions back to Skydeck's list`);
  const put = (name: string, roleName: string) =>
    c.resources.resources.beginCreateOrUpdateByIdAndWait(`${base}/${name}`, ROLE_DEFINITIONS_API, body(sub, roleName), lro) as Promise<RoleDef>;
  try {
    const name = found?.name ?? controllerRoleName(sub);
    try {
      return (await put(name, found?.properties?.roleName ?? names[0])).id ?? `/${base}/${name}`;
    } catch (e) {
      // The plain name is another subscription's: this one gets its own.
      if (found || azureCode(e).code !== 'RoleDefinitionWithSameNameExists') throw e;
      return (await put(name, names[1])).id ?? `/${base}/${name}`;
    }
  } catch (e) {
    const { code, message } = azureCode(e);
    if (code === 'AuthorizationFailed') {
      throw new ProviderError('auth', `a managed-jobs controller on Azure: your account may not create or update the custom role "${CONTROLLER_ROLE_NAME}" (${message})`,
        'creating a custom role needs Owner or User Access Administrator on the subscription (Microsoft.Authorization/roleDefinitions/write); or put the controller on this machine (jobs.controller: local)');
    }
    throw toAzureError(e, 'roleDefinitions.createOrUpdate');
  }
}

/** The controller's assignment of the role on the subscription, with its condition; returns its id. */
export async function grantController(c: AzureClients, principalId: string, tags: Record<string, string>, lro: { updateIntervalInMs: number }, log?: (m: string) => void): Promise<string> {
  const role = await ensureControllerRole(c, lro, log);
  const scope = `/subscriptions/${c.subscriptionId}`;
  try {
    return await putAssignment({ c, principalId, lro, description: grantDescription(tags, CONTROLLER_MARK), condition: controllerCondition() }, scope, role.split('/').pop()!);
  } catch (e) {
    const { code, message } = azureCode(e);
    if (code === 'AuthorizationFailed') {
      throw new ProviderError('auth', `a managed-jobs controller on Azure: your account may not assign "${CONTROLLER_ROLE_NAME}" on subscription ${c.subscriptionId} (${message})`,
        'creating a role assignment needs Owner, User Access Administrator or Role Based Access Control Administrator on the subscription');
    }
    throw toAzureError(e, 'roleAssignments.create');
  }
}
