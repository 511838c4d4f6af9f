// Microsoft.Authorization/roleAssignments as ARM has them (azure-rest-api-specs:
// specification/authorization/resource-manager/Microsoft.Authorization/stable/2022-04-01/
// authorization-RoleAssignmentsCalls.json): an extension resource at any scope,
// "{scope}/providers/Microsoft.Authorization/roleAssignments/{name}" with a GUID name.
// Create (PUT) answers 201 (200 for the same again) and refuses a second assignment of the same
// role and principal at the scope (409 RoleAssignmentExists); Get answers 404
// RoleAssignmentNotFound; Delete answers 200 with the deleted assignment, 204 when there is none;
// List For Subscription / List For Scope answer {value, nextLink}, with every assignment at,
// above and below the scope, and take $filter "atScope()" or "principalId eq '{id}'".
// Properties: roleDefinitionId, principalId, principalType, scope, description, condition,
// conditionVersion, createdOn, updatedOn, createdBy, updatedBy.
import { ArmError, groupBeingDeleted, groupNotFound, resourceNotFound } from './bodies';
import { BUILTIN_ACTIONS, FAKE_TENANT } from './identity';
import type { ArmModel, Json } from './model';
import type { Reply } from './wire';

const TYPE = 'Microsoft.Authorization/roleAssignments';
const SEGMENT = '/providers/microsoft.authorization/roleassignments';

/** `path` split at the roleAssignments segment, or undefined when it is not a role-assignment path. */
export function roleAssignmentPath(path: string): { scope: string; name?: string } | undefined {
  const i = path.toLowerCase().lastIndexOf(SEGMENT);
  if (i < 0) return undefined;
  const rest = path.slice(i + SEGMENT.length).split('/').filter(Boolean);
  if (rest.length > 1) return undefined;
  return { scope: path.slice(0, i), name: rest[0] };
}

const all = (m: ArmModel) => [...m.resources.values()].filter((r) => r.type === TYPE);

/** The scope must exist: its resource group, and a storage account it is on or below. */
function checkScope(m: ArmModel, scope: string): void {
  const rg = /^\/subscriptions\/[^/]+\/resourceGroups\/([^/]+)/i.exec(scope)?.[1];
  if (!rg) return;
  const g = m.get(m.groupId(rg));
  if (!g) throw groupNotFound(rg);
  if (g.properties.provisioningState === 'Deleting') throw groupBeingDeleted(rg);
  const acct = /^(.*\/providers\/Microsoft\.Storage\/storageAccounts\/([^/]+))/i.exec(scope);
  if (acct && !m.get(acct[1])) throw resourceNotFound('Microsoft.Storage/storageAccounts', acct[2], rg);
}

export function roleAssignments(m: ArmModel, method: string, at: { scope: string; name?: string }, body: Json | undefined, query: URLSearchParams, list: (items: Json[]) => Reply): Reply {
  const { scope, name } = at;
  if (!name) {
    if (method !== 'GET') throw new ArmError(405, 'MethodNotAllowed', `${method} is not allowed here.`);
    const low = scope.toLowerCase();
    const filter = query.get('$filter') ?? '';
    const principal = /^principalId eq '([^']+)'$/.exec(filter)?.[1];
    if (filter && !principal && filter !== 'atScope()') throw new ArmError(400, 'UnsupportedQuery', `The filter '${filter}' is not supported.`);
    return list(all(m).filter((r) => {
      const s = String(r.properties.scope).toLowerCase();
      const above = low === s || low.startsWith(`${s}/`);
      if (filter === 'atScope()') return above;
      return (above || s.startsWith(`${low}/`)) && (!principal || r.properties.principalId === principal);
    }));
  }
  const id = `${scope}/providers/Microsoft.Authorization/roleAssignments/${name}`;
  const existing = m.get(id);
  if (method === 'GET') {
    if (!existing) throw new ArmError(404, 'RoleAssignmentNotFound', `The role assignment '${name}' is not found.`);
    return { status: 200, body: existing };
  }
  if (method === 'DELETE') {
    if (existing) m.remove(id);
    return existing ? { status: 200, body: existing } : { status: 204 };
  }
  if (method !== 'PUT') throw new ArmError(405, 'MethodNotAllowed', `${method} is not allowed here.`);
  const p = body?.properties ?? {};
  const role = String(p.roleDefinitionId ?? '').split('/').pop() ?? '';
  if (!/^[0-9a-f-]{36}$/.test(name)) throw new ArmError(400, 'InvalidRoleAssignmentId', `The role assignment ID '${name}' is not valid. The role assignment ID must be a GUID.`);
  // A custom role exists only where its assignableScopes reach: elsewhere ARM answers as for no role.
  const custom = m.get(String(p.roleDefinitionId));
  const assignable = (custom?.properties.assignableScopes ?? []).some((s: string) => scope.toLowerCase() === s.toLowerCase() || scope.toLowerCase().startsWith(`${s.toLowerCase()}/`));
  if (!BUILTIN_ACTIONS[role] && !assignable) throw new ArmError(400, 'RoleDefinitionDoesNotExist', `The specified role definition with ID '${role}' does not exist.`);
  if (p.condition && p.conditionVersion !== '2.0') throw new ArmError(400, 'InvalidConditionVersion', 'The conditionVersion must be 2.0 when a condition is given.');
  checkScope(m, scope);
  const visibleAt = m.identities.principals.get(p.principalId);
  if (visibleAt === undefined || Date.now() < visibleAt) {
    throw new ArmError(400, 'PrincipalNotFound', `Principal ${String(p.principalId).replace(/-/g, '')} does not exist in the directory ${FAKE_TENANT}. Check that you have the correct principal ID. If you are creating this principal and then immediately assigning a role, this error might be related to a replication delay. In this case, set the role assignment principalType property to a value, such as ServicePrincipal, User, or Group.  See https://aka.ms/docs-principaltype`);
  }
  const same = all(m).find((r) => String(r.properties.scope).toLowerCase() === scope.toLowerCase()
    && r.properties.principalId === p.principalId && r.properties.roleDefinitionId.endsWith(role));
  if (same && same.name !== name) throw new ArmError(409, 'RoleAssignmentExists', 'The role assignment already exists.');
  const now = new Date().toISOString();
  const ra = {
    id, name, type: TYPE,
    properties: { ...p, scope, condition: p.condition ?? null, conditionVersion: p.conditionVersion ?? null, description: p.description ?? null,
      createdOn: existing?.properties.createdOn ?? now, updatedOn: now, createdBy: null, updatedBy: '00000000-0000-0000-0000-0000000000aa' },
  };
  m.put(ra);
  return { status: existing ? 200 : 201, body: ra };
}
