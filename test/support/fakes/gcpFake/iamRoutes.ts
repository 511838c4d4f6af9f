// The IAM v1 (iam.googleapis.com) and Cloud Resource Manager v1 (cloudresourcemanager.googleapis.com)
// routes Skydeck's autodown set-up calls, served on the Compute fake's port (both APIs start
// at /v1/, Compute at /compute/v1/). Paths, bodies and errors per the REST references:
//   GET  /v1/projects/{p}/serviceAccounts/{email}     POST /v1/projects/{p}/serviceAccounts {accountId, serviceAccount}
//   DELETE /v1/projects/{p}/serviceAccounts/{email} (→ {})
//   GET  /v1/projects/{p}/serviceAccounts?pageSize=&pageToken= (→ {accounts, nextPageToken}; pageSize 1–100, default 20)
//   GET  /v1/projects/{p}/roles/{id}                   POST /v1/projects/{p}/roles {roleId, role}
//   PATCH /v1/projects/{p}/roles/{id}?updateMask=…     (Role; a stale etag is ABORTED)
//   POST /v1/projects/{p}:getIamPolicy {options: {requestedPolicyVersion}}
//   POST /v1/projects/{p}:setIamPolicy {policy, updateMask?}
//   POST /v1/projects/{p}/serviceAccounts/{email}:getIamPolicy {options?}   (the account's own policy)
//   POST /v1/projects/{p}/serviceAccounts/{email}:setIamPolicy {policy, updateMask?}
import { rpcError } from './bodies';
import type { FakeRole } from './iam';
import type { GceModel, Json } from './model';

const ACCOUNT_ID = /^[a-z]([-a-z0-9]*[a-z0-9])$/;
const ROLE_ID = /^[a-zA-Z0-9_.]{3,64}$/;
const PERMISSION = /^[a-z][a-zA-Z0-9]*(\.[a-zA-Z0-9]+){2}$/;

export function iamRoute(projects: Map<string, GceModel>, method: string, url: URL, body: Json | undefined): unknown {
  const path = url.pathname;
  const policyCall = /^\/v1\/projects\/([^/:]+):(getIamPolicy|setIamPolicy)$/.exec(path);
  const project = policyCall?.[1] ?? /^\/v1\/projects\/([^/]+)\//.exec(path)?.[1] ?? '';
  const m = projects.get(project);
  if (policyCall) {
    // Resource Manager answers a project the caller cannot see (or that does not exist) with 403, not 404.
    const denied = () => rpcError(403, 'PERMISSION_DENIED', 'The caller does not have permission');
    if (!m || method !== 'POST') throw denied();
    if (policyCall[2] === 'getIamPolicy') {
      m.iam.caller('resourcemanager.projects.getIamPolicy', 'The caller does not have permission');
      return m.iam.policy(Number((body?.options as Json | undefined)?.requestedPolicyVersion ?? 1));
    }
    m.iam.caller('resourcemanager.projects.setIamPolicy', 'The caller does not have permission');
    m.iam.setPolicyCalls.push(body ?? {});
    if (!body?.policy) throw rpcError(400, 'INVALID_ARGUMENT', "Invalid JSON payload: 'policy' is required.");
    return m.iam.setPolicy(body.policy as Json);
  }
  if (!m) throw rpcError(404, 'NOT_FOUND', `Project ${project} not found`);
  const accountPolicy = /^\/v1\/projects\/[^/]+\/serviceAccounts\/([^/:]+):(getIamPolicy|setIamPolicy)$/.exec(path);
  if (accountPolicy) {
    const email = decodeURIComponent(accountPolicy[1]);
    if (method !== 'POST') throw rpcError(404, 'NOT_FOUND', `Method not found: ${method} ${path}`);
    const permission = `iam.serviceAccounts.${accountPolicy[2]}`;
    m.iam.caller(permission, `Permission '${permission}' denied on resource (or it may not exist).`);
    if (accountPolicy[2] === 'getIamPolicy') return m.iam.accountPolicy(email);
    if (!body?.policy) throw rpcError(400, 'INVALID_ARGUMENT', "Invalid JSON payload: 'policy' is required.");
    return m.iam.setAccountPolicy(email, body.policy as Json);
  }
  const rest = path.slice(`/v1/projects/${project}/`.length).split('/');
  const key = `${method} ${rest.map((p, i) => (i % 2 ? '*' : p)).join('/')}`;
  const iam = m.iam;
  const denied = (permission: string) => `Permission '${permission}' denied on resource (or it may not exist).`;
  switch (key) {
    case 'GET serviceAccounts/*': {
      iam.caller('iam.serviceAccounts.get', denied('iam.serviceAccounts.get'));
      const sa = iam.accounts.get(decodeURIComponent(rest[1]));
      if (!sa) throw rpcError(404, 'NOT_FOUND', 'Unknown service account');
      return sa;
    }
    case 'DELETE serviceAccounts/*': {
      iam.caller('iam.serviceAccounts.delete', denied('iam.serviceAccounts.delete'));
      const email = decodeURIComponent(rest[1]);
      if (!iam.accounts.delete(email)) throw rpcError(404, 'NOT_FOUND', `Service account projects/${project}/serviceAccounts/${email} not found.`);
      iam.deleted.add(email);
      iam.accountPolicies.delete(email);
      return {};
    }
    case 'GET serviceAccounts': {
      iam.caller('iam.serviceAccounts.list', denied('iam.serviceAccounts.list'));
      const size = Math.min(Number(url.searchParams.get('pageSize') ?? 20) || 20, 100, iam.listPageSize);
      const token = url.searchParams.get('pageToken');
      const start = token ? Number(Buffer.from(token, 'base64url').toString('utf8').replace(/^sa#/, '')) : 0;
      if (!Number.isInteger(start)) throw rpcError(400, 'INVALID_ARGUMENT', 'Invalid page token.');
      const all = [...iam.accounts.values()];
      const next = start + size < all.length ? Buffer.from(`sa#${start + size}`).toString('base64url') : undefined;
      return { accounts: all.slice(start, start + size), ...(next ? { nextPageToken: next } : {}) };
    }
    case 'POST serviceAccounts': {
      iam.caller('iam.serviceAccounts.create', denied('iam.serviceAccounts.create'));
      const id = String(body?.accountId ?? '');
      if (id.length < 6 || id.length > 30 || !ACCOUNT_ID.test(id)) throw rpcError(400, 'INVALID_ARGUMENT', `Invalid value for accountId: '${id}'.`);
      return iam.createAccount(id, (body?.serviceAccount ?? {}) as Json);
    }
    case 'GET roles/*': {
      iam.caller('iam.roles.get', denied('iam.roles.get'));
      return role(m, rest[1]);
    }
    case 'POST roles': {
      iam.caller('iam.roles.create', denied('iam.roles.create'));
      const id = String(body?.roleId ?? '');
      if (!ROLE_ID.test(id)) throw rpcError(400, 'INVALID_ARGUMENT', `The role ID "${id}" is invalid.`);
      const name = `projects/${project}/roles/${id}`;
      if (iam.roles.has(name)) throw rpcError(409, 'ALREADY_EXISTS', `A role named ${id} in projects/${project} already exists.`);
      const r = (body?.role ?? {}) as Json;
      const out: FakeRole = { ...r, name, includedPermissions: permissions(r.includedPermissions), stage: r.stage ?? 'ALPHA', etag: etag() };
      iam.roles.set(name, out);
      return out;
    }
    case 'PATCH roles/*': {
      iam.caller('iam.roles.update', denied('iam.roles.update'));
      const r = role(m, rest[1]);
      if (body?.etag !== undefined && body.etag !== r.etag) {
        throw rpcError(409, 'ABORTED', 'There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff.');
      }
      const mask = (url.searchParams.get('updateMask') ?? 'title,description,includedPermissions,stage').split(',');
      for (const f of mask) {
        if (f === 'includedPermissions') r.includedPermissions = permissions(body?.includedPermissions);
        else if (['title', 'description', 'stage'].includes(f) && body && f in body) r[f] = body[f];
      }
      r.etag = etag();
      return r;
    }
    default:
      throw rpcError(404, 'NOT_FOUND', `Method not found: ${method} ${path}`);
  }
}

function role(m: GceModel, id: string): FakeRole {
  const r = m.iam.roles.get(`projects/${m.project}/roles/${id}`);
  if (!r) throw rpcError(404, 'NOT_FOUND', `The role named projects/${m.project}/roles/${id} was not found.`);
  return r;
}

function permissions(v: unknown): string[] {
  const list = Array.isArray(v) ? v.map(String) : [];
  const bad = list.find((p) => !PERMISSION.test(p));
  if (bad) throw rpcError(400, 'INVALID_ARGUMENT', `Permission ${bad} is not valid.`);
  return list;
}

let etags = 0;
const etag = () => Buffer.from(`role-${++etags}`).toString('base64');
