// Microsoft.Authorization/roleDefinitions as ARM has them (azure-rest-api-specs:
// specification/authorization/resource-manager/Microsoft.Authorization/stable/2022-04-01/
// authorization-RoleDefinitionsCalls.json), for custom roles at a subscription:
// "/subscriptions/{s}/providers/Microsoft.Authorization/roleDefinitions/{GUID}". Create or
// update (PUT) answers 201 with the definition; a second custom role of the same roleName is
// refused (409 RoleDefinitionWithSameNameExists); Get answers 404 RoleDefinitionDoesNotExist;
// Delete 200 (204 when none); a role name is unique in the tenant (every subscription the
// fake holds), though a listing shows only the roles assignable at its scope; List answers {value, nextLink} and takes $filter
// "roleName eq '{name}'" or "type eq 'CustomRole'". Built-in roles are not listed here.
import { ArmError } from './bodies';
import type { ArmModel, Json } from './model';
import type { Reply } from './wire';

export const ROLE_DEFINITION_TYPE = 'Microsoft.Authorization/roleDefinitions';
const SEGMENT = '/providers/microsoft.authorization/roledefinitions';

/** `path` split at the roleDefinitions segment, or undefined when it is not a role-definition path. */
export function roleDefinitionPath(path: string): { scope: string; name?: string } | undefined {
  const i = path.toLowerCase().lastIndexOf(SEGMENT);
  if (i < 0) return undefined;
  const rest = path.slice(i + SEGMENT.length).split('/').filter(Boolean);
  if (rest.length > 1) return undefined;
  return { scope: path.slice(0, i), name: rest[0] };
}

export const customRoles = (m: ArmModel): Json[] => [...m.resources.values()].filter((r) => r.type === ROLE_DEFINITION_TYPE);

/** `tenant`: the custom roles of every subscription of the tenant (a role name is unique across them). */
export function roleDefinitions(m: ArmModel, method: string, at: { scope: string; name?: string }, body: Json | undefined, query: URLSearchParams, list: (items: Json[]) => Reply, tenant: () => Json[] = () => customRoles(m)): Reply {
  const { scope, name } = at;
  if (!name) {
    if (method !== 'GET') throw new ArmError(405, 'MethodNotAllowed', `${method} is not allowed here.`);
    const filter = query.get('$filter') ?? '';
    const byName = /^roleName eq '([^']*)'$/.exec(filter)?.[1];
    if (filter && byName === undefined && filter !== "type eq 'CustomRole'") throw new ArmError(400, 'UnsupportedQuery', `The filter '${filter}' is not supported.`);
    return list(customRoles(m).filter((d) => byName === undefined || d.properties.roleName === byName));
  }
  const id = `${scope}/providers/Microsoft.Authorization/roleDefinitions/${name}`;
  const existing = m.get(id);
  if (method === 'GET') {
    if (!existing) throw new ArmError(404, 'RoleDefinitionDoesNotExist', 'The specified role definition with ID \'' + name + '\' does not exist.');
    return { status: 200, body: existing };
  }
  if (method === 'DELETE') {
    if (existing) m.remove(id);
    return existing ? { status: 200, body: existing } : { status: 204 };
  }
  if (method !== 'PUT') throw new ArmError(405, 'MethodNotAllowed', `${method} is not allowed here.`);
  if (!/^[0-9a-f-]{36}$/.test(name)) throw new ArmError(400, 'InvalidRoleDefinitionId', `The role definition ID '${name}' is not valid.`);
  const p = body?.properties ?? {};
  if (!p.roleName || !Array.isArray(p.permissions) || !Array.isArray(p.assignableScopes) || !p.assignableScopes.length) {
    throw new ArmError(400, 'InvalidRoleDefinition', 'roleName, permissions and assignableScopes are required.');
  }
  const same = tenant().find((d) => d.properties.roleName === p.roleName && d.name !== name);
  if (same) throw new ArmError(409, 'RoleDefinitionWithSameNameExists', `A custom role with the same name already exists in this directory. Use a different name.`);
  const now = new Date().toISOString();
  const def = {
    id, name, type: ROLE_DEFINITION_TYPE,
    properties: { roleName: p.roleName, type: 'CustomRole', description: p.description ?? null, assignableScopes: p.assignableScopes, permissions: p.permissions,
      createdOn: existing?.properties.createdOn ?? now, updatedOn: now, createdBy: null, updatedBy: '00000000-0000-0000-0000-0000000000aa' },
  };
  m.put(def);
  return { status: 201, body: def };
}
