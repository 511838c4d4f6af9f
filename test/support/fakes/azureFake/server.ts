// A local fake of Azure Resource Manager (the routes Skydeck's Azure provider uses), served over
// https on 127.0.0.1 with a self-signed certificate, for the real @azure/arm-* clients.
import { LoopbackHttp } from '../loopbackHttp';
import { ArmError, authorizationFailed, groupBeingDeleted, missingAuth, resourceNotFound } from './bodies';
import { deleteDisk, deleteVm, instanceView, putVm, vmAction } from './compute';
import { ArmModel, type Json } from './model';
import { deleteNetwork, putNetwork, putRule } from './network';
import { page } from './paging';
import { lroHeaders, opStatus, parseBody, strip, type Reply } from './wire';
import { miCheck, userAssigned } from './identity';
import { roleAssignmentPath, roleAssignments } from './roleAssignments';
import { customRoles, roleDefinitionPath, roleDefinitions } from './roleDefinitions';
import { actionsOf } from './actions';
import { listSkus } from './skus';
import type { TestCert } from './tls';

export class AzureFake extends LoopbackHttp {
  /** The default subscription's state; `addSubscription` adds others, each with its own state. */
  readonly model: ArmModel;
  readonly subscriptions = new Map<string, ArmModel>();
  private readonly stepMs: number;
  requireAuth = true;
  /** 403 AuthorizationFailed on every write (an identity with Reader only). */
  denyWrites = false;
  readonly faults: { method: string; path: RegExp; error: ArmError; times: number }[] = [];
  /** Items per page of every list answer (tests set a small one; the rest comes by nextLink). */
  pageSize = 1000;
  /** Every request with the RBAC actions it needs (actions.ts), when `recording` is on. */
  readonly requests: { method: string; path: string; actions: string[] }[] = [];
  recording = false;

  constructor(tls: TestCert, subscription = '00000000-0000-0000-0000-00000000beef', stepMs = 25) {
    super(tls);
    this.stepMs = stepMs;
    this.model = new ArmModel(subscription, stepMs);
    this.subscriptions.set(subscription, this.model);
  }

  /** Another subscription the token can use, with nothing in it. */
  addSubscription(id: string): ArmModel {
    const m = new ArmModel(id, this.stepMs);
    this.subscriptions.set(id, m);
    return m;
  }

  get endpoint(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  override async stop(): Promise<void> {
    for (const m of this.subscriptions.values()) m.close();
    await super.stop();
  }

  failNext(method: string, path: RegExp, error: ArmError, times = 1): void {
    this.faults.push({ method, path, error, times });
  }

  protected async handle(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', this.endpoint);
    const method = req.method ?? 'GET';
    let reply: Reply;
    try {
      if (this.requireAuth && !/^Bearer \S+/.test(req.headers.authorization ?? '')) throw missingAuth();
      const sub = /^\/subscriptions\/([^/]+)/i.exec(url.pathname)?.[1] ?? '';
      const m = this.subscriptions.get(sub) ?? this.model;
      const body = chunks.length ? parseBody(Buffer.concat(chunks).toString('utf8')) : undefined;
      if (this.recording) this.requests.push({ method, path: url.pathname, actions: actionsOf(m, method, url.pathname, body) });
      miCheck(m, req.headers.authorization, method, url.pathname, body);
      const fault = this.faults.find((f) => f.method === method && f.path.test(url.pathname) && f.times > 0);
      if (fault) {
        fault.times--;
        throw fault.error;
      }
      if (method !== 'GET' && method !== 'HEAD') m.calls.push({ method, path: url.pathname, body: body && structuredClone(body) });
      if (this.denyWrites && ['PUT', 'DELETE', 'POST', 'PATCH'].includes(method)) throw authorizationFailed(`write on ${url.pathname}`, url.pathname);
      reply = this.route(m, method, url.pathname, body, url);
    } catch (e) {
      // A bug of the fake still answers in ARM's shape, so the client reports it instead of hanging.
      const err = e instanceof ArmError ? e : new ArmError(500, 'InternalServerError', `fake ARM: ${(e as Error)?.stack ?? String(e)}`);
      reply = { status: err.status, body: err.body() };
    }
    res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'x-ms-request-id': crypto.randomUUID(), ...reply.headers });
    res.end(reply.body === undefined || method === 'HEAD' ? undefined : JSON.stringify(strip(reply.body)));
  }

  private route(m: ArmModel, method: string, path: string, body: Json | undefined, url: URL): Reply {
    const query = url.searchParams;
    const list = (items: Json[]): Reply => ({ status: 200, body: page(items, url, this.pageSize) });
    const s = path.split('/').filter(Boolean); // subscriptions, S, ...
    if (s[0]?.toLowerCase() !== 'subscriptions' || !this.subscriptions.has(s[1]) || s[1] !== m.subscription) {
      throw new ArmError(404, 'SubscriptionNotFound', `The subscription '${s[1]}' could not be found.`);
    }
    const rest = s.slice(2);
    const low = rest.map((x) => x.toLowerCase());
    const ra = roleAssignmentPath(path);
    if (ra) return roleAssignments(m, method, ra, body, query, list);
    const rd = roleDefinitionPath(path);
    if (rd) return roleDefinitions(m, method, rd, body, query, list, () => [...this.subscriptions.values()].flatMap(customRoles));
    if (low[0] === 'resources' && rest.length === 1 && method === 'GET') return list(resourcesOf(m, query));
    if (low[0] === 'providers' && low[2] === 'locations') return opStatus(m, low[4], rest[5], url);
    if (low[0] === 'operationresults') return opStatus(m, 'operationresults', rest[1], url);
    if (low[0] === 'providers' && low[1] === 'microsoft.compute' && low[2] === 'virtualmachines' && method === 'GET') return list(m.vms());
    if (low[0] === 'providers' && low[1] === 'microsoft.compute' && low[2] === 'skus' && method === 'GET') return list(listSkus(m, query).value);
    if (low[0] !== 'resourcegroups') throw new ArmError(400, 'InvalidRequestUri', `The request URI '${path}' is not valid.`);
    if (rest.length === 1) {
      // $filter=tagName eq 'k' [and tagValue eq 'v'], the one filter resource groups support.
      const f = /tagName eq '([^']+)'(?:\s+and\s+tagValue eq '([^']*)')?/.exec(query.get('$filter') ?? '');
      const groups = [...m.resources.values()].filter((r) => r.type === 'Microsoft.Resources/resourceGroups')
        .filter((g) => !f || (f[1] in (g.tags ?? {}) && (f[2] === undefined || g.tags[f[1]] === f[2])));
      // ARM answers a tag-filtered listing without the tags ("When you filter by a tag name and
      // value, the tags for each resource are not returned in the results": resources.json,
      // Resources_List $filter). ResourceGroups_List's own $filter text is silent on it; the
      // fake takes the documented behaviour, so a client must read tags some other way.
      return list(f ? groups.map(({ tags: _dropped, ...g }) => g) : groups);
    }
    const rg = rest[1];
    if (rest.length === 2) return this.group(m, method, rg, body);
    const g = m.group(rg);
    const [, , , ns, type, name, sub, subName] = rest;
    const baseId = `${m.groupId(g.name)}/providers/${ns}/${type}`;
    const id = `${baseId}/${name}`;
    if (!name && method === 'GET') return list(m.under(`${baseId}/`).filter((r) => String(r.id).split('/').length === baseId.split('/').length + 1));
    if (method !== 'GET' && g.properties.provisioningState === 'Deleting') throw groupBeingDeleted(rg);
    if (type?.toLowerCase() === 'userassignedidentities' && !sub) return userAssigned(m, method, id, name, g.name, body);
    if (type?.toLowerCase() === 'storageaccounts' && sub) return blobContainer(m, method, path, rest, rg);
    if (type.toLowerCase() === 'virtualmachines') return this.vm(m, method, id, g.name, name, sub, body);
    if (type.toLowerCase() === 'disks') return this.disk(m, method, id, name, rg);
    if (sub?.toLowerCase() === 'securityrules') {
      const nsg = m.get(id);
      if (!nsg) throw resourceNotFound(`Microsoft.Network/${type}`, name, rg);
      if (method === 'GET' && !subName) return list(nsg.properties.securityRules ?? []);
      if (method === 'GET') {
        const found = (nsg.properties.securityRules ?? []).find((r: Json) => r.name === subName);
        if (!found) throw resourceNotFound(`Microsoft.Network/${type}/${name}/securityRules`, subName, rg);
        return { status: 200, body: found };
      }
      const rule = putRule(m, id, subName, body ?? {});
      return { status: 201, body: rule, headers: lroHeaders(this.endpoint, m, m.op(1, () => undefined), nsg.location) };
    }
    return this.networkResource(m, method, id, type, name, rg, body);
  }

  private group(m: ArmModel, method: string, rg: string, body: Json | undefined): Reply {
    const existing = m.resources.get(m.groupId(rg).toLowerCase());
    if (method === 'GET' || method === 'HEAD') return existing ? { status: method === 'HEAD' ? 204 : 200, body: existing } : { status: 404, body: m.group(rg) };
    if (method === 'DELETE') {
      const op = m.deleteGroup(rg);
      return { status: 202, headers: { location: `${this.endpoint}/subscriptions/${m.subscription}/operationresults/${op.id}?api-version=2021-04-01` } };
    }
    if (existing?.properties.provisioningState === 'Deleting') throw groupBeingDeleted(rg);
    const g = { id: m.groupId(rg), name: rg, type: 'Microsoft.Resources/resourceGroups', location: body?.location, tags: body?.tags ?? {}, properties: { provisioningState: 'Succeeded' } };
    m.put(g);
    return { status: existing ? 200 : 201, body: g };
  }

  private vm(m: ArmModel, method: string, id: string, rg: string, name: string, action: string | undefined, body: Json | undefined): Reply {
    const vm = m.get(id);
    if (method === 'PUT') {
      const r = putVm(m, id, rg, name, body ?? {});
      return { status: r.status, body: r.body, headers: lroHeaders(this.endpoint, m, r.op, r.body.location) };
    }
    if (!vm) throw resourceNotFound('Microsoft.Compute/virtualMachines', name, rg);
    if (method === 'GET' && action?.toLowerCase() === 'instanceview') return { status: 200, body: instanceView(vm) };
    if (method === 'GET') return { status: 200, body: vm };
    if (method === 'DELETE') return { status: 202, headers: lroHeaders(this.endpoint, m, deleteVm(m, vm), vm.location, true) };
    if (method === 'POST' && action) return { status: 202, headers: lroHeaders(this.endpoint, m, vmAction(m, vm, action), vm.location, true) };
    throw new ArmError(405, 'MethodNotAllowed', `${method} is not allowed here.`);
  }

  private networkResource(m: ArmModel, method: string, id: string, type: string, name: string, rg: string, body: Json | undefined): Reply {
    const r = m.get(id);
    if (method === 'PUT') {
      const created = putNetwork(m, id, type, name, body ?? {});
      const op = m.op(1, () => (created.properties.provisioningState = 'Succeeded'));
      return { status: r ? 200 : 201, body: created, headers: lroHeaders(this.endpoint, m, op, created.location) };
    }
    if (!r) throw resourceNotFound(`Microsoft.Network/${type}`, name, rg);
    if (method === 'GET') return { status: 200, body: r };
    if (method === 'DELETE') return { status: 202, headers: lroHeaders(this.endpoint, m, m.op(1, deleteNetwork(m, r)), r.location, true) };
    throw new ArmError(405, 'MethodNotAllowed', `${method} is not allowed here.`);
  }

  /** Managed disks: made by a VM create (compute.ts), read and deleted here. */
  private disk(m: ArmModel, method: string, id: string, name: string, rg: string): Reply {
    const d = m.get(id);
    if (!d) throw resourceNotFound('Microsoft.Compute/disks', name, rg);
    if (method === 'GET') return { status: 200, body: d };
    if (method === 'DELETE') return { status: 202, headers: lroHeaders(this.endpoint, m, deleteDisk(m, d), d.location, true) };
    throw new ArmError(405, 'MethodNotAllowed', `${method} is not allowed here.`);
  }
}


/**
 * Resources - List (resources.json, GET /subscriptions/{id}/resources): the subscription's
 * resources (not its groups), with $filter "resourceType eq '<type>'"; other filters the fake
 * does not know are refused rather than ignored.
 */
function resourcesOf(m: ArmModel, query: URLSearchParams): Json[] {
  const filter = query.get('$filter') ?? '';
  const type = /^resourceType eq '([^']+)'$/i.exec(filter)?.[1];
  if (filter && !type) throw new ArmError(400, 'InvalidFilterInQueryString', `The fake does not know the filter '${filter}'.`);
  return [...m.resources.values()].filter((r) => r.type !== 'Microsoft.Resources/resourceGroups' && (!type || String(r.type).toLowerCase() === type.toLowerCase()))
    .map(({ properties: _p, ...r }) => r);
}

/**
 * Blob Containers - Get (storage stable 2023-05-01, blob.json BlobContainers_Get):
 * ".../storageAccounts/{a}/blobServices/default/containers/{c}", answering a container the test
 * put in the model (type Microsoft.Storage/storageAccounts/blobServices/containers), else 404
 * ContainerNotFound; a missing account is ResourceNotFound. Nothing else of the storage RP.
 */
function blobContainer(m: ArmModel, method: string, path: string, rest: string[], rg: string): Reply {
  const [, , , , , account, blob, svc, kind, name, ...more] = rest;
  if (method !== 'GET' || blob.toLowerCase() !== 'blobservices' || svc !== 'default' || kind?.toLowerCase() !== 'containers' || !name || more.length) {
    throw new ArmError(400, 'InvalidRequestUri', `The fake does not serve ${method} ${path}.`);
  }
  const acct = path.slice(0, path.toLowerCase().indexOf('/blobservices/'));
  if (!m.get(acct)) throw resourceNotFound('Microsoft.Storage/storageAccounts', account, rg);
  const found = m.get(path);
  if (!found) throw new ArmError(404, 'ContainerNotFound', 'The specified container does not exist.');
  return { status: 200, body: found };
}
