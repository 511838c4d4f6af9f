import { createHash } from 'node:crypto';
import { ProviderError } from '../provider';
import type { AzureClients } from './clients';
import { listById } from './armList';
import { azCall, azureCode, toAzureError } from './errors';

// Skydeck's custom roles of a subscription ("Skydeck jobs controller": controllerRole.ts;
// "Skydeck autostop": autostopRole.ts): each found or created by this machine's credentials, and
// set back to exactly its action list when anyone widened or narrowed it. A custom role's name
// is unique in the tenant, while a listing at a subscription shows only the roles assignable
// there: where another subscription holds the plain name, this one gets "<name> (<subscription>)".

/** Microsoft.Authorization/roleDefinitions (azure-rest-api-specs: authorization stable 2022-04-01). */
export const ROLE_DEFINITIONS_API = '2022-04-01';

export interface CustomRoleSpec {
  roleName: string;
  /** Seeds the role's GUID (with the subscription): the same one every time. */
  seed: string;
  description: string;
  actions: readonly string[];
  /**
   * Always at its GUID (customRoleGuid), never adopted by name: something else names it by that
   * id without reading role definitions (an older version's controller condition names the autostop role).
   */
  pinned?: boolean;
  /** What a user lacking roleDefinitions/write is told (the action needing the role). */
  what: string;
  fix: string;
}

type RoleDef = { id?: string; name?: string; properties?: { roleName?: string; permissions?: { actions?: string[]; notActions?: string[]; dataActions?: string[]; notDataActions?: string[] }[]; assignableScopes?: string[] } };

/** The role's GUID name when Skydeck creates it: the same for a subscription every time. */
export function customRoleGuid(seed: string, subscription: string): string {
  const h = createHash('sha256').update(`${seed}|${subscription.toLowerCase()}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The role's names: the plain one, and the subscription's own when another subscription of the tenant holds the plain one. */
export function customRoleNames(roleName: string, subscription: string): [string, string] {
  return [roleName, `${roleName} (${subscription})`];
}

/** Whether a definition grants exactly `actions` (any order) and nothing else, assignable at the subscription only. */
export function grantsExactly(def: RoleDef | undefined, actions: readonly string[], subscription: string): boolean {
  const perms = def?.properties?.permissions ?? [];
  const sorted = (a: readonly string[] | undefined) => JSON.stringify([...(a ?? [])].sort());
  const scopes = def?.properties?.assignableScopes ?? [];
  return perms.length === 1 && sorted(perms[0].actions) === sorted(actions) && !perms[0].notActions?.length
    && !perms[0].dataActions?.length && !perms[0].notDataActions?.length
    && scopes.length === 1 && scopes[0].toLowerCase() === `/subscriptions/${subscription}`.toLowerCase();
}

function body(spec: CustomRoleSpec, subscription: string, roleName: string): object {
  return { properties: {
    roleName, type: 'CustomRole', description: spec.description,
    permissions: [{ actions: [...spec.actions], notActions: [], dataActions: [], notDataActions: [] }],
    assignableScopes: [`/subscriptions/${subscription}`],
  } };
}

/** The subscription's role of `spec`: found or created, set back to exactly its actions when changed. Returns its id. */
export async function ensureCustomRole(c: AzureClients, spec: CustomRoleSpec, lro: { updateIntervalInMs: number }, log?: (m: string) => void): Promise<string> {
  const sub = c.subscriptionId;
  const base = `subscriptions/${sub}/providers/Microsoft.Authorization/roleDefinitions`;
  const names = customRoleNames(spec.roleName, sub);
  const guid = customRoleGuid(spec.seed, sub);
  const filter = encodeURIComponent("type eq 'CustomRole'");
  const all = await azCall('roleDefinitions.list', () => listById(c, `${base}?$filter=${filter}`, ROLE_DEFINITIONS_API)) as RoleDef[];
  const found = spec.pinned ? all.find((d) => d.name?.toLowerCase() === guid) : all.find((d) => names.includes(d.properties?.roleName ?? ''));
  if (found && grantsExactly(found, spec.actions, sub)) return found.id!;
  if (found) log?.(`azure: role "${found.properties?.roleName}" was changed; setting its actions back to Skydeck's list`);
  const put = (name: string, roleName: string) =>
    c.resources.resources.beginCreateOrUpdateByIdAndWait(`${base}/${name}`, ROLE_DEFINITIONS_API, body(spec, sub, roleName), lro) as Promise<RoleDef>;
  const name = found?.name ?? guid;
  try {
    try {
      return (await put(name, found?.properties?.roleName ?? names[0])).id ?? `/${base}/${name}`;
    } catch (e) {
      // The plain name is another subscription's (or, for a pinned role, a hand-made role's): this one gets its own.
      if (found || azureCode(e).code !== 'RoleDefinitionWithSameNameExists') throw e;
      return (await put(name, names[1])).id ?? `/${base}/${name}`;
    }
  } catch (e) {
    const { code, message } = azureCode(e);
    if (code === 'AuthorizationFailed') {
      throw new ProviderError('auth', `${spec.what} on Azure: your account may not create or update the custom role "${spec.roleName}" (${message})`,
        `creating a custom role needs Owner or User Access Administrator on the subscription (Microsoft.Authorization/roleDefinitions/write); ${spec.fix}`);
    }
    throw toAzureError(e, 'roleDefinitions.createOrUpdate');
  }
}
