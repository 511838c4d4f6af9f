// Managed identities as ARM has them: a VM created with a system-assigned identity gets a
// principal; a user-assigned identity (Microsoft.ManagedIdentity/userAssignedIdentities, its
// own resource) has one and is attached to VMs by id; role assignments (roleAssignments.ts)
// grant principals roles; requests made with the principal's token (from the IMDS fake) are
// allowed only where a role covers them. A new principal is invisible to the role service for
// `principalLagMs` (PrincipalNotFound), as after a real creation.
import { randomUUID } from 'node:crypto';
import { ArmError, resourceNotFound } from './bodies';
import type { ArmModel, Json } from './model';
import type { Reply } from './wire';
import { actionOf, actionsOf, covers } from './actions';

export const MI_TOKEN_PREFIX = 'fake-mi-token:';
export const FAKE_TENANT = '72f988bf-0000-0000-0000-0000000000aa';
export const CONTRIBUTOR = 'b24988ac-6180-42a0-ab88-20f7382dd24c';
export const VM_CONTRIBUTOR = '9980e02c-c2be-4d73-94e8-173b1dc7cf3c';

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
 * The role-assignment GUIDs a condition (controllerRole.ts's form) lets an assignment write
 * (@Request) or delete (@Resource); undefined when the condition says nothing of that action.
 */
function conditionRoles(condition: string | null | undefined, source: 'Request' | 'Resource'): string[] | undefined {
  const m = new RegExp(`@${source}\\[Microsoft\\.Authorization/roleAssignments:RoleDefinitionId\\] ForAnyOfAnyValues:GuidEquals \\{([^}]*)\\}`).exec(condition ?? '');
  return m ? m[1].split(',').map((x) => x.trim().toLowerCase()) : undefined;
}

/** Whether a custom role (a roleDefinitions resource of the model) with its assignment's condition allows the request. */
function customAllows(m: ArmModel, ra: Json, method: string, path: string, body: Json | undefined): boolean | string | undefined {
  const def = m.get(String(ra.properties.roleDefinitionId));
  if (def?.type !== 'Microsoft.Authorization/roleDefinitions') return undefined;
  const granted: string[] = (def.properties.permissions ?? []).flatMap((x: Json) => x.actions ?? []);
  const missing = actionsOf(m, method, path, body).find((a) => !covers(granted, a));
  if (missing) return missing;
  const action = actionOf(method, path).toLowerCase();
  const role = (id: unknown) => String(id ?? '').split('/').pop()!.toLowerCase();
  if (action === 'microsoft.authorization/roleassignments/write') {
    const ok = conditionRoles(ra.properties.condition, 'Request');
    const principalType = /PrincipalType\] ForAnyOfAnyValues:StringEqualsIgnoreCase \{'([^']*)'\}/.exec(ra.properties.condition ?? '')?.[1];
    if (ok && !ok.includes(role(body?.properties?.roleDefinitionId))) return false;
    if (principalType && String(body?.properties?.principalType ?? '').toLowerCase() !== principalType.toLowerCase()) return false;
  }
  if (action === 'microsoft.authorization/roleassignments/delete') {
    const ok = conditionRoles(ra.properties.condition, 'Resource');
    const target = m.get(path);
    if (ok && target && !ok.includes(role(target.properties.roleDefinitionId))) return false;
  }
  return true;
}

/** A request made with a managed identity's token: allowed where one of its roles covers it. */
export function miCheck(m: ArmModel, authorization: string | undefined, method: string, path: string, body?: Json): void {
  const token = /^Bearer (\S+)/.exec(authorization ?? '')?.[1] ?? '';
  if (!token.startsWith(MI_TOKEN_PREFIX)) return;
  const principal = token.slice(MI_TOKEN_PREFIX.length);
  const low = path.toLowerCase();
  const roles = [...m.resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleAssignments' && r.properties.principalId === principal);
  let lacking: string | undefined;
  const ok = roles.some((r) => {
    const scope = String(r.properties.scope).toLowerCase();
    if (low !== scope && !low.startsWith(`${scope}/`)) return false;
    const custom = customAllows(m, r, method, path, body);
    if (typeof custom === 'string') lacking = custom;
    if (custom !== undefined) return custom === true;
    if (r.properties.roleDefinitionId.endsWith(CONTRIBUTOR)) return true;
    return low.includes('/providers/microsoft.compute/virtualmachines') && (method === 'GET' || method === 'POST');
  });
  if (!ok) {
    const action = lacking ?? (method === 'DELETE' && /resourcegroups\/[^/]+$/.test(low) ? 'Microsoft.Resources/subscriptions/resourceGroups/delete' : `${method} ${path}`);
    throw new ArmError(403, 'AuthorizationFailed', `The client '${principal}' with object id '${principal}' does not have authorization to perform action '${action}' over scope '${path}' or the scope is invalid. If access was recently granted, please refresh your credentials.`);
  }
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
