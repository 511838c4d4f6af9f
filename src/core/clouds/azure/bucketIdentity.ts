import { ProviderError, type BucketAccess, type RunRequest } from '../provider';
import type { AzureClients } from './clients';
import { grantDescription, JOBS_MARK, missingBlobGrants, revokeBucketGrants, ROLE_BLOB_CONTRIBUTOR, shortScope } from './bucketGrants';
import { azCall, azureCode, toAzureError } from './errors';
import { putAssignment } from './identity';
import { ensureJobsIdentityRole, grantController, JOBS_IDENTITY_ROLE_NAME } from './controllerRole';
import { groupName, jobsGroupName } from './names';
import { waitGroupGone } from './group';

// Nodes of a task with Azure Blob mounts read and write exactly its containers as ONE
// user-assigned managed identity per cluster, in the cluster's group and attached to every VM,
// rather than a system-assigned identity per VM: one principal means one role assignment per
// container whatever the node count (a resumed or added node needs no new grant), its id is
// known before any VM exists (grants are in place when a node first mounts), and rclone names
// it by its deterministic resource id (msi_mi_res_id) on a head that also has the
// system-assigned identity autostop uses. The identity goes with the group; the grants, which
// sit on the containers, are deleted by bucketGrants.ts.

/** Microsoft.ManagedIdentity/userAssignedIdentities (azure-rest-api-specs: msi stable 2023-01-31). */
export const MI_API = '2023-01-31';
export const BUCKET_IDENTITY = 'skydeck-buckets';

export function bucketIdentityId(subscription: string, uid: string): string {
  return `/subscriptions/${subscription}/resourceGroups/${groupName(uid)}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${BUCKET_IDENTITY}`;
}

// A managed-jobs controller's job clusters hold no identity of their own: the controller may
// not create identities nor attach any but one, its "jobs identity", which this machine makes
// in the controller's own group when it launches the controller (tagged as the controller, so
// its group's delete takes it and the sweep sees the group), and on which alone the controller's
// identity holds "Skydeck jobs identity user" (read, assign/action: controllerRole.ts). Job
// clusters with Blob mounts carry it on every node; their grants on containers are tagged as
// the controller's (the identity is shared by its job clusters: a job cluster's down must not
// take another's access), revoked at the controller's down.
export const JOBS_IDENTITY = 'skydeck-jobs';
/** Tag on the jobs identity (its other tags are the controller's). */
export const TAG_JOBS_IDENTITY = 'skydeck-jobs-identity';

export function jobsIdentityId(subscription: string, controllerUid: string): string {
  return `/subscriptions/${subscription}/resourceGroups/${groupName(controllerUid)}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${JOBS_IDENTITY}`;
}

type Mi = { tags?: Record<string, string>; properties?: unknown };
const principalOf = (mi: Mi) => (mi.properties as { principalId?: string } | undefined)?.principalId;

/**
 * This machine, launching a controller: its jobs identity (created or kept), and the controller
 * identity's `principalId` given the jobs-identity role at that identity's scope only.
 */
async function ensureJobsIdentity(o: BucketIdentityOptions, principalId: string): Promise<string> {
  const { c, req } = o;
  const id = jobsIdentityId(c.subscriptionId, req.uid);
  const made = await azCall('userAssignedIdentities.createOrUpdate', () =>
    c.resources.resources.beginCreateOrUpdateByIdAndWait(id.slice(1), MI_API, { location: o.location, tags: { ...req.tags, [TAG_JOBS_IDENTITY]: 'true' } }, o.lro));
  const jobsPrincipal = principalOf(made);
  if (!jobsPrincipal) throw new ProviderError('config', `Azure created ${JOBS_IDENTITY} in ${groupName(req.uid)} without a principal id`);
  const role = await ensureJobsIdentityRole(c, o.lro, o.log);
  try {
    await putAssignment({ c, principalId, lro: o.lro, description: grantDescription(req.tags, JOBS_MARK), newRole: true }, id, role.split('/').pop()!);
  } catch (e) {
    const { code, message } = azureCode(e);
    if (code === 'AuthorizationFailed') {
      throw new ProviderError('auth', `a managed-jobs controller on Azure: your account may not assign "${JOBS_IDENTITY_ROLE_NAME}" on ${id} (${message})`,
        'creating a role assignment needs Owner, User Access Administrator or Role Based Access Control Administrator on the subscription');
    }
    throw toAzureError(e, 'roleAssignments.create');
  }
  return jobsPrincipal;
}

/** Tag on a controller's jobs group (its other tags are the controller's, so the sweep sees it as the controller's). */
export const TAG_JOBS_GROUP = 'skydeck-jobs-group';

/**
 * This machine, launching a controller (before its VM exists): the one resource group all its
 * job clusters go into, the only group its compute and network role reaches (controllerRole.ts).
 * Tagged as the controller: a group its down did not reach is a leak of that uid (emptyGroups).
 */
async function ensureJobsGroup(o: BucketIdentityOptions): Promise<string> {
  const group = jobsGroupName(o.req.uid);
  await waitGroupGone(o.c, group, o.lro.updateIntervalInMs, 10 * 60_000, true);
  await azCall('resourceGroups.createOrUpdate', () => o.c.resources.resourceGroups.createOrUpdate(group, { location: o.location, tags: { ...o.req.tags, [TAG_JOBS_GROUP]: 'true' } }));
  return group;
}

/**
 * On a controller VM: the jobs identity, which must hold Storage Blob Data Contributor on every
 * one of `scopes` already (granted from this machine when the job was submitted:
 * managed/remote/controllerBuckets.ts); the VM may make no role assignment, so a missing grant
 * is refused here, naming the containers, before anything is made. Returns the identity's id.
 */
export async function checkJobsIdentity(c: AzureClients, id: string, scopes: string[]): Promise<string> {
  const mi = await azCall('userAssignedIdentities.get', () => c.resources.resources.getById(id.slice(1), MI_API)) as Mi;
  const principalId = principalOf(mi);
  if (!principalId || mi.tags?.[TAG_JOBS_IDENTITY] !== 'true') throw new ProviderError('config', `${id} is not a Skydeck controller's jobs identity`);
  const missing = await missingBlobGrants(c, principalId, scopes);
  if (missing.length) throw notGranted(missing);
  return id;
}

/** What a controller VM says of containers its jobs identity was not granted at submit. */
export function notGranted(scopes: string[]): ProviderError {
  return new ProviderError('config', `this managed-jobs controller's jobs identity holds no Storage Blob Data Contributor on Azure container ${scopes.map(shortScope).join(', ')}, `
    + 'and a controller VM makes no role assignment itself (the grant is made from your machine when the job is submitted)',
  'submit the job again from your machine (its tasks\' containers are granted then); a container given by name must be in the storage account of AZURE_STORAGE_ACCOUNT both on your machine and on the controller (started again from your machine after a change)');
}

export interface Container {
  account: string;
  container: string;
}

/** The request's Blob containers, once each (a prefix narrows nothing: roles stop at the container). */
export function containersOf(access: BucketAccess[] | undefined): Container[] {
  const out = new Map<string, Container>();
  for (const a of access ?? []) {
    if (a.store !== 'azure') continue;
    if (!a.account) throw new ProviderError('config', `Azure container ${a.bucket}: no storage account is known`, 'name it in the URL (https://<account>.blob.core.windows.net/<container>) or set AZURE_STORAGE_ACCOUNT');
    out.set(`${a.account.toLowerCase()}/${a.bucket}`, { account: a.account.toLowerCase(), container: a.bucket });
  }
  return [...out.values()];
}

/**
 * Each container's ARM scope, from the storage accounts of the subscription (one listing: an
 * account's group is not in its URL). A missing account is a config error, before anything is made.
 */
export async function containerScopes(c: AzureClients, containers: Container[]): Promise<string[]> {
  if (!containers.length) return [];
  const ids = await azCall('resources.list', async () => {
    const m = new Map<string, string>();
    for await (const r of c.resources.resources.list({ filter: "resourceType eq 'Microsoft.Storage/storageAccounts'" })) {
      if (r.name && r.id) m.set(r.name.toLowerCase(), r.id);
    }
    return m;
  });
  return containers.map((k) => {
    const id = ids.get(k.account);
    if (!id) {
      throw new ProviderError('config', `Azure storage account ${k.account} (container ${k.container}) is not in subscription ${c.subscriptionId}`,
        'check the account name in the URL, or use the subscription that holds it (AZURE_SUBSCRIPTION_ID or "az account set")');
    }
    return `${id}/blobServices/default/containers/${k.container}`;
  });
}

export interface BucketIdentityOptions {
  c: AzureClients;
  req: RunRequest;
  location: string;
  scopes: string[];
  lro: { updateIntervalInMs: number };
  log?: (m: string) => void;
  /** A managed-jobs controller cluster: the identity also gets the controller role (controllerRole.ts). */
  controller?: boolean;
}

/**
 * The cluster's identity (created or kept) with Storage Blob Data Contributor on exactly
 * `scopes`; grants of the uid on other containers (an earlier launch's) are deleted. A
 * controller's identity also holds the controller role on its jobs group (made here first), and
 * its jobs identity the same containers (the row's recorded union of its jobs'). Returns the
 * identity's id, or undefined when there are no containers and it is no controller (no identity is made).
 */
export async function ensureBucketIdentity(o: BucketIdentityOptions): Promise<string | undefined> {
  const { c, req } = o;
  if (!o.scopes.length && !o.controller) {
    await revokeBucketGrants(c, req.uid, o.lro, o.log);
    return undefined;
  }
  const id = bucketIdentityId(c.subscriptionId, req.uid);
  const made = await azCall('userAssignedIdentities.createOrUpdate', () =>
    c.resources.resources.beginCreateOrUpdateByIdAndWait(id.slice(1), MI_API, { location: o.location, tags: req.tags }, o.lro));
  const principalId = (made.properties as { principalId?: string } | undefined)?.principalId;
  if (!principalId) throw new ProviderError('config', `Azure created ${BUCKET_IDENTITY} in ${groupName(req.uid)} without a principal id`);
  const description = grantDescription(req.tags);
  const grant = (holder: string) => Promise.all(o.scopes.map(async (scope) => {
    try {
      return await putAssignment({ c, principalId: holder, lro: o.lro, description }, scope, ROLE_BLOB_CONTRIBUTOR);
    } catch (e) {
      const { code, message } = azureCode(e);
      if (code === 'AuthorizationFailed') {
        throw new ProviderError('auth', `Blob mounts on Azure: your account may not give the cluster's identity a role on ${scope} (${message})`,
          'creating a role assignment needs Owner, User Access Administrator or Role Based Access Control Administrator on the storage account; or share an account key (skydeck.storage.shareCredentials)');
      }
      throw toAzureError(e, 'roleAssignments.create');
    }
  }));
  const granted = await grant(principalId);
  if (o.controller) {
    const jobsGroup = await ensureJobsGroup(o);
    await grantController(c, principalId, req.tags, jobsGroup, o.lro, o.log);
    // Its jobs identity keeps the containers of the jobs submitted so far (the row's recorded
    // union): the VM may not grant them again, so a start must not revoke what it mounts with.
    granted.push(...await grant(await ensureJobsIdentity(o, principalId)));
  }
  await revokeBucketGrants(c, req.uid, o.lro, o.log, granted);
  return id;
}
