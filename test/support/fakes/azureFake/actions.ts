// The Azure RBAC actions one ARM request needs, derived the way ARM names them: the resource
// provider namespace and resource types of the path (the last "/providers/" segment: an
// extension resource such as a role assignment is its own provider's), then read (GET, HEAD),
// write (PUT, PATCH), delete (DELETE) or "<name>/action" (POST). Plus the linked access checks
// ARM makes on ids a request body references (a NIC's subnet: subnets/join/action; a VM's
// user-assigned identity: assign/action), the managed OS disk a VM's PUT creates, and a
// resource group's delete, which is checked against every resource inside it.
import type { ArmModel, Json } from './model';

const VERB: Record<string, string> = { GET: 'read', HEAD: 'read', PUT: 'write', PATCH: 'write', DELETE: 'delete' };

/** "ns/type/name/type2/…" (the part after a "/providers/") as its action for `method`. */
function providerAction(method: string, segs: string[]): string {
  const [ns, ...rest] = segs;
  const types = rest.filter((_, i) => i % 2 === 0);
  if (method === 'POST') return `${ns}/${types.slice(0, -1).join('/')}/${types.at(-1)}/action`.replace(/\/\/+/g, '/');
  return `${ns}/${types.join('/')}/${VERB[method] ?? method}`;
}

/** The action of the request itself. */
export function actionOf(method: string, path: string): string {
  const s = path.split('/').filter(Boolean);
  const p = s.map((x) => x.toLowerCase()).lastIndexOf('providers');
  if (p >= 2) return providerAction(method, s.slice(p + 1));
  const rest = s.slice(2).map((x) => x.toLowerCase());
  if (!rest.length) return `Microsoft.Resources/subscriptions/${VERB[method]}`;
  if (rest[0] === 'resourcegroups') {
    if (rest[2] === 'resources') return 'Microsoft.Resources/subscriptions/resourceGroups/resources/read';
    return `Microsoft.Resources/subscriptions/resourceGroups/${VERB[method]}`;
  }
  if (rest[0] === 'resources') return 'Microsoft.Resources/subscriptions/resources/read';
  if (rest[0] === 'operationresults') return 'Microsoft.Resources/subscriptions/operationresults/read';
  return `? ${method} ${path}`;
}

/** Every string in a body that is an ARM id of a resource, values and keys alike (userAssignedIdentities keys). */
function referencedIds(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string' && /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\//i.test(v)) out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => referencedIds(x, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      referencedIds(k, out);
      referencedIds(x, out);
    }
  }
  return out;
}

/**
 * The linked access checks ARM makes for a PUT's body, each on the linked resource's own scope
 * (a NIC's subnet: subnets/join/action; a VM's user-assigned identity: assign/action).
 */
export function linkedOf(method: string, path: string, body: Json | undefined): { action: string; id: string }[] {
  if (method !== 'PUT') return [];
  const out: { action: string; id: string }[] = [];
  for (const id of referencedIds(body)) {
    const s = id.split('/').filter(Boolean);
    const p = s.map((x) => x.toLowerCase()).lastIndexOf('providers');
    const read = providerAction('GET', s.slice(p + 1));
    if (/^Microsoft\.Authorization\//i.test(read) || id.toLowerCase() === path.toLowerCase()) continue;
    out.push({ action: read.replace(/\/read$/, /^Microsoft\.ManagedIdentity\//i.test(read) ? '/assign/action' : '/join/action'), id });
  }
  return out;
}

/** The request's own actions (checked on its path): its action, the OS disk a VM's PUT makes, what a group's delete deletes. */
export function ownActionsOf(m: ArmModel, method: string, path: string, body: Json | undefined): string[] {
  const own = actionOf(method, path);
  const out = [own];
  const disk = body?.properties?.storageProfile?.osDisk;
  if (method === 'PUT' && own.toLowerCase() === 'microsoft.compute/virtualmachines/write' && disk?.createOption === 'FromImage') out.push('Microsoft.Compute/disks/write');
  if (method === 'DELETE' && own === 'Microsoft.Resources/subscriptions/resourceGroups/delete') {
    const g = `${path}/`.toLowerCase();
    for (const r of m.resources.values()) if (String(r.id).toLowerCase().startsWith(g) && r.type) out.push(`${r.type}/delete`);
  }
  return [...new Set(out)];
}

/** The request's action and the linked ones ARM checks with it. `m`: the state before the request. */
export function actionsOf(m: ArmModel, method: string, path: string, body: Json | undefined): string[] {
  return [...new Set([...ownActionsOf(m, method, path, body), ...linkedOf(method, path, body).map((l) => l.action)])];
}

/** Whether `granted` (a role's actions, "*" wildcards allowed) covers `action` (ARM compares them case-insensitively). */
export function covers(granted: readonly string[], action: string): boolean {
  const a = action.toLowerCase();
  return granted.some((g) => new RegExp(`^${g.toLowerCase().replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(a));
}
