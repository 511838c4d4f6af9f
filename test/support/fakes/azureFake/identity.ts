// Managed identities and role assignments as ARM has them, for the head VM's self-stop: a VM
// created with a system-assigned identity gets a principal; roleAssignments PUT at a resource
// group grants that principal a built-in role there; requests made with the principal's token
// (from the IMDS fake) are allowed only where a role covers them. A new principal is invisible
// to the role service for `principalLagMs` (PrincipalNotFound), as after a real creation.
import { randomUUID } from 'node:crypto';
import { ArmError } from './bodies';
import type { ArmModel, Json } from './model';

export const MI_TOKEN_PREFIX = 'fake-mi-token:';
export const FAKE_TENANT = '72f988bf-0000-0000-0000-0000000000aa';
const CONTRIBUTOR = 'b24988ac-6180-42a0-ab88-20f7382dd24c';
const VM_CONTRIBUTOR = '9980e02c-c2be-4d73-94e8-173b1dc7cf3c';

export class Identities {
  /** principalId → when the role service can see it. */
  readonly principals = new Map<string, number>();
  principalLagMs = 0;

  /** The VM's `identity` after a PUT asking for a system-assigned one (the principal survives updates). */
  vmIdentity(asked: Json | undefined, existing: Json | undefined): Json | undefined {
    if (!String(asked?.type ?? '').includes('SystemAssigned')) return undefined;
    const principalId = existing?.principalId ?? randomUUID();
    if (!this.principals.has(principalId)) this.principals.set(principalId, Date.now() + this.principalLagMs);
    return { type: 'SystemAssigned', principalId, tenantId: FAKE_TENANT };
  }
}

export function putRoleAssignment(m: ArmModel, ids: Identities, scope: string, name: string, body: Json): { status: number; body: Json } {
  const p = body?.properties ?? {};
  const role = String(p.roleDefinitionId ?? '').split('/').pop() ?? '';
  if (!/^[0-9a-f-]{36}$/.test(name)) throw new ArmError(400, 'InvalidRoleAssignmentId', `The role assignment ID '${name}' is not valid. The role assignment ID must be a GUID.`);
  if (![CONTRIBUTOR, VM_CONTRIBUTOR].includes(role)) throw new ArmError(400, 'RoleDefinitionDoesNotExist', `The specified role definition with ID '${role}' does not exist.`);
  const visibleAt = ids.principals.get(p.principalId);
  if (visibleAt === undefined || Date.now() < visibleAt) {
    throw new ArmError(400, 'PrincipalNotFound', `Principal ${String(p.principalId).replace(/-/g, '')} does not exist in the directory ${FAKE_TENANT}. Check that you have the correct principal ID. If you are creating this principal and then immediately assigning a role, this error might be related to a replication delay. In this case, set the role assignment principalType property to a value, such as ServicePrincipal, User, or Group.  See https://aka.ms/docs-principaltype`);
  }
  const id = `${scope}/providers/Microsoft.Authorization/roleAssignments/${name}`;
  const same = m.under(`${scope}/providers/Microsoft.Authorization/roleAssignments/`)
    .find((r) => r.properties.principalId === p.principalId && r.properties.roleDefinitionId.endsWith(role));
  if (same && same.name !== name) throw new ArmError(409, 'RoleAssignmentExists', 'The role assignment already exists.');
  const ra = { id, name, type: 'Microsoft.Authorization/roleAssignments', properties: { ...p, scope, createdOn: new Date().toISOString() } };
  m.put(ra);
  return { status: same ? 200 : 201, body: ra };
}

/** A request made with a managed identity's token: allowed where one of its roles covers it. */
export function miCheck(m: ArmModel, authorization: string | undefined, method: string, path: string): void {
  const token = /^Bearer (\S+)/.exec(authorization ?? '')?.[1] ?? '';
  if (!token.startsWith(MI_TOKEN_PREFIX)) return;
  const principal = token.slice(MI_TOKEN_PREFIX.length);
  const low = path.toLowerCase();
  const roles = [...m.resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleAssignments' && r.properties.principalId === principal);
  const ok = roles.some((r) => {
    const scope = String(r.properties.scope).toLowerCase();
    if (low !== scope && !low.startsWith(`${scope}/`)) return false;
    if (r.properties.roleDefinitionId.endsWith(CONTRIBUTOR)) return true;
    return low.includes('/providers/microsoft.compute/virtualmachines') && (method === 'GET' || method === 'POST');
  });
  if (!ok) {
    const action = method === 'DELETE' && /resourcegroups\/[^/]+$/.test(low) ? 'Microsoft.Resources/subscriptions/resourceGroups/delete' : `${method} ${path}`;
    throw new ArmError(403, 'AuthorizationFailed', `The client '${principal}' with object id '${principal}' does not have authorization to perform action '${action}' over scope '${path}' or the scope is invalid. If access was recently granted, please refresh your credentials.`);
  }
}
