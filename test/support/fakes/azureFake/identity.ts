// Managed identities as ARM has them: a VM created with a system-assigned identity gets a
// principal; a user-assigned identity (Microsoft.ManagedIdentity/userAssignedIdentities, its
// own resource) has one and is attached to VMs by id; role assignments (roleAssignments.ts)
// grant principals roles; requests made with the principal's token (from the IMDS fake) are
// allowed only where an assignment at or above the path covers them: its role's actions (a
// custom role's definition, or a built-in's list below) and its ABAC condition (condition.ts). A new principal is invisible to the role service for
// `principalLagMs` (PrincipalNotFound), as after a real creation.
import { randomUUID } from 'node:crypto';
import { ArmError, resourceNotFound } from './bodies';
import type { ArmModel, Json } from './model';
import type { Reply } from './wire';
import { actionOf, covers, linkedOf, ownActionsOf } from './actions';
import { conditionAllows, CONDITION_ATTRS } from './condition';

export const MI_TOKEN_PREFIX = 'fake-mi-token:';
export const FAKE_TENANT = '72f988bf-0000-0000-0000-0000000000aa';
export const CONTRIBUTOR = 'b24988ac-6180-42a0-ab88-20f7382dd24c';
export const VM_CONTRIBUTOR = '9980e02c-c2be-4d73-94e8-173b1dc7cf3c';
export const OWNER = '8e3af657-a8ff-443c-a75c-2fe8c4bcb635';
export const BLOB_CONTRIBUTOR = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe';

export class Identities {
  /** principalId → when the role service can see it. */
  readonly principals = new Map<string, number>();
  principalLagMs = 0;

  /** A new principal, visible to the role service after `principalLagMs`. */
  newPrincipal(): string {
    const id = randomUUID();
    this.principals.set(id, Date.now() + this.principalLagMs);
    return id;
  }

  /**
   * The VM's `identity` after a PUT (the system principal survives updates). Compute
   * VirtualMachineIdentity (virtualMachine.json, ComputeRP 2024-07-01): type "SystemAssigned",
   * "UserAssigned" or "SystemAssigned, UserAssigned"; userAssignedIdentities maps each identity's
   * ARM id to {principalId, clientId}, and an id that is not a user-assigned identity is refused.
   */
  vmIdentity(m: ArmModel, asked: Json | undefined, existing: Json | undefined): Json | undefined {
    const type = String(asked?.type ?? '');
    const system = type.includes('SystemAssigned');
    const users = type.includes('UserAssigned') ? Object.keys(asked?.userAssignedIdentities ?? {}) : [];
    if (!system && !users.length) return undefined;
    const out: Json = { type: system && users.length ? 'SystemAssigned, UserAssigned' : system ? 'SystemAssigned' : 'UserAssigned' };
    if (system) Object.assign(out, { principalId: existing?.principalId ?? this.newPrincipal(), tenantId: FAKE_TENANT });
    if (users.length) {
      out.userAssignedIdentities = Object.fromEntries(users.map((id) => {
        const mi = m.get(id);
        if (mi?.type !== USER_ASSIGNED) throw new ArmError(400, 'FailedIdentityOperation', `Identity '${id}' was not found.`);
        return [id, { principalId: mi.properties.principalId, clientId: mi.properties.clientId }];
      }));
    }
    return out;
  }
}

/**
 * Built-in roles' control-plane actions, abridged to the providers the fake serves (Azure's
 * built-in role definitions). Contributor is "*" without Authorization writes and deletes, but
 * the fake lets it delete a group holding role assignments (an autodown head deletes its group
 * with its own assignment in it).
 */
export const BUILTIN_ACTIONS: Record<string, { actions: string[]; notActions?: string[] }> = {
  [OWNER]: { actions: ['*'] },
  [CONTRIBUTOR]: { actions: ['*'], notActions: ['Microsoft.Authorization/*/Write', 'Microsoft.Authorization/*/Delete', 'Microsoft.Authorization/elevateAccess/Action'] },
  [VM_CONTRIBUTOR]: { actions: [
    'Microsoft.Authorization/*/read', 'Microsoft.Compute/availabilitySets/*', 'Microsoft.Compute/locations/*', 'Microsoft.Compute/virtualMachines/*',
    'Microsoft.Compute/virtualMachineScaleSets/*', 'Microsoft.Compute/disks/write', 'Microsoft.Compute/disks/read', 'Microsoft.Compute/disks/delete',
    'Microsoft.Network/networkInterfaces/*', 'Microsoft.Network/networkSecurityGroups/join/action', 'Microsoft.Network/networkSecurityGroups/read',
    'Microsoft.Network/publicIPAddresses/join/action', 'Microsoft.Network/publicIPAddresses/read', 'Microsoft.Network/virtualNetworks/read',
    'Microsoft.Network/virtualNetworks/subnets/join/action', 'Microsoft.Resources/deployments/*', 'Microsoft.Resources/subscriptions/resourceGroups/read',
    'Microsoft.Storage/storageAccounts/listKeys/action', 'Microsoft.Storage/storageAccounts/read',
  ] },
  [BLOB_CONTRIBUTOR]: { actions: ['Microsoft.Storage/storageAccounts/blobServices/containers/delete', 'Microsoft.Storage/storageAccounts/blobServices/containers/read',
    'Microsoft.Storage/storageAccounts/blobServices/containers/write', 'Microsoft.Storage/storageAccounts/blobServices/generateUserDelegationKey/action'] },
};

const roleGuid = (id: unknown) => String(id ?? '').split('/').pop()!.toLowerCase();

/**
 * Whether the assignment's condition allows the request: evaluated (condition.ts) for its own
 * action, and for a resource group's delete once per role assignment the group holds (the
 * fake checks the delete of each as ARM checks each resource's delete).
 */
function conditionOk(m: ArmModel, ra: Json, method: string, path: string, body: Json | undefined): boolean {
  const condition = ra.properties.condition;
  if (!condition) return true;
  if (ra.properties.conditionVersion !== '2.0') throw new ArmError(400, 'InvalidConditionVersion', 'The conditionVersion must be 2.0.');
  const of = (x: Json | undefined) => ({
    [CONDITION_ATTRS.RoleDefinitionId]: x?.properties?.roleDefinitionId, [CONDITION_ATTRS.PrincipalType]: x?.properties?.principalType,
  });
  const action = actionOf(method, path);
  if (!conditionAllows(condition, { action, request: method === 'PUT' ? of(body) : {}, resource: of(m.get(path)) })) return false;
  if (method === 'DELETE' && action === 'Microsoft.Resources/subscriptions/resourceGroups/delete') {
    const inside = m.under(`${path}/`).filter((r) => r.type === 'Microsoft.Authorization/roleAssignments');
    return inside.every((r) => conditionAllows(condition, { action: 'Microsoft.Authorization/roleAssignments/delete', request: {}, resource: of(r) }));
  }
  return true;
}

/**
 * Whether one assignment (its role's actions, its condition) allows the request: true, false
 * (the condition refused), or the first action its role lacks.
 */
function assignmentAllows(m: ArmModel, ra: Json, method: string, path: string, body: Json | undefined): true | false | string {
  const def = m.get(String(ra.properties.roleDefinitionId));
  const builtin = BUILTIN_ACTIONS[roleGuid(ra.properties.roleDefinitionId)];
  let granted: string[];
  let denied: string[] = [];
  if (def?.type === 'Microsoft.Authorization/roleDefinitions') {
    granted = (def.properties.permissions ?? []).flatMap((x: Json) => x.actions ?? []);
    denied = (def.properties.permissions ?? []).flatMap((x: Json) => x.notActions ?? []);
  } else if (builtin) {
    granted = builtin.actions;
    denied = builtin.notActions ?? [];
  } else {
    return `(role ${ra.properties.roleDefinitionId} unknown to the fake)`;
  }
  const groupDelete = method === 'DELETE' && actionOf(method, path) === 'Microsoft.Resources/subscriptions/resourceGroups/delete';
  const excused = (a: string) => groupDelete && roleGuid(ra.properties.roleDefinitionId) === CONTRIBUTOR && a === 'Microsoft.Authorization/roleAssignments/delete';
  const missing = ownActionsOf(m, method, path, body).find((a) => !covers(granted, a) || (covers(denied, a) && !excused(a)));
  if (missing) return missing;
  return conditionOk(m, ra, method, path, body);
}

/** The role's granted and denied actions (a custom role's definition, a built-in's list); none for an unknown role. */
function roleActions(m: ArmModel, ra: Json): { granted: string[]; denied: string[] } {
  const def = m.get(String(ra.properties.roleDefinitionId));
  if (def?.type === 'Microsoft.Authorization/roleDefinitions') {
    return { granted: (def.properties.permissions ?? []).flatMap((x: Json) => x.actions ?? []), denied: (def.properties.permissions ?? []).flatMap((x: Json) => x.notActions ?? []) };
  }
  const builtin = BUILTIN_ACTIONS[roleGuid(ra.properties.roleDefinitionId)];
  return { granted: builtin?.actions ?? [], denied: builtin?.notActions ?? [] };
}

const covering = (ra: Json, id: string) => {
  const scope = String(ra.properties.scope).toLowerCase();
  const low = id.toLowerCase();
  return low === scope || low.startsWith(`${scope}/`);
};

/** A request made with a managed identity's token: allowed where one of its roles covers it. */
export function miCheck(m: ArmModel, authorization: string | undefined, method: string, path: string, body?: Json): void {
  const token = /^Bearer (\S+)/.exec(authorization ?? '')?.[1] ?? '';
  if (!token.startsWith(MI_TOKEN_PREFIX)) return;
  const principal = token.slice(MI_TOKEN_PREFIX.length);
  const low = path.toLowerCase();
  const roles = [...m.resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleAssignments' && r.properties.principalId === principal);
  linkedCheck(m, roles, principal, method, path, body);
  let lacking: string | undefined;
  const ok = roles.some((r) => {
    const scope = String(r.properties.scope).toLowerCase();
    if (low !== scope && !low.startsWith(`${scope}/`)) return false;
    const allowed = assignmentAllows(m, r, method, path, body);
    if (typeof allowed === 'string') lacking ??= allowed;
    return allowed === true;
  });
  if (!ok) {
    const action = lacking ?? actionOf(method, path);
    throw new ArmError(403, 'AuthorizationFailed', `The client '${principal}' with object id '${principal}' does not have authorization to perform action '${action}' over scope '${path}' or the scope is invalid. If access was recently granted, please refresh your credentials.`);
  }
}

/**
 * ARM's linked access checks: each action on a resource the body references (a VM's
 * user-assigned identity: assign/action; a NIC's subnet: join/action) must be allowed by an
 * assignment whose scope covers THAT resource, not the request's path. Refused: 403
 * LinkedAuthorizationFailed, in ARM's words (own action allowed; the linked ones and their scopes).
 */
function linkedCheck(m: ArmModel, roles: Json[], principal: string, method: string, path: string, body: Json | undefined): void {
  const lacking = linkedOf(method, path, body).filter(({ action, id }) => !roles.some((ra) => {
    if (!covering(ra, id)) return false;
    const { granted, denied } = roleActions(m, ra);
    return covers(granted, action) && !covers(denied, action);
  }));
  if (!lacking.length) return;
  const own = roles.some((ra) => covering(ra, path) && covers(roleActions(m, ra).granted, actionOf(method, path)));
  if (!own) return; // the request's own check refuses it first, as AuthorizationFailed
  throw new ArmError(403, 'LinkedAuthorizationFailed', `The client '${principal}' with object id '${principal}' has permission to perform action '${actionOf(method, path)}' on scope '${path}'; `
    + `however, it does not have permission to perform action(s) '${[...new Set(lacking.map((l) => l.action))].join(',')}' on the linked scope(s) '${lacking.map((l) => l.id).join(',')}' (respectively) or the linked scope(s) are invalid.`);
}

const USER_ASSIGNED = 'Microsoft.ManagedIdentity/userAssignedIdentities';

/**
 * userAssignedIdentities PUT/GET/DELETE in a group (azure-rest-api-specs: msi stable
 * 2023-01-31, ManagedIdentity.json UserAssignedIdentities_CreateOrUpdate 200/201, _Get,
 * _Delete 200/204): properties tenantId, principalId, clientId, all read-only; a re-PUT keeps them.
 */
export function userAssigned(m: ArmModel, method: string, id: string, name: string, rg: string, body: Json | undefined): Reply {
  const existing = m.get(id);
  if (method === 'PUT') {
    const properties = existing?.properties ?? { tenantId: FAKE_TENANT, principalId: m.identities.newPrincipal(), clientId: randomUUID() };
    const mi = m.put({ id, name, type: USER_ASSIGNED, location: body?.location, tags: body?.tags ?? {}, properties });
    return { status: existing ? 200 : 201, body: mi };
  }
  if (method === 'DELETE') {
    if (existing) m.remove(id);
    return { status: existing ? 200 : 204 };
  }
  if (!existing) throw resourceNotFound(USER_ASSIGNED, name, rg);
  if (method === 'GET') return { status: 200, body: existing };
  throw new ArmError(405, 'MethodNotAllowed', `${method} is not allowed here.`);
}
