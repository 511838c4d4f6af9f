import { ProviderError, TAG_CLUSTER, TAG_UID, TAG_WORKSPACE, type TaggedIdentity } from '../provider';
import type { AzureClients } from './clients';
import { listById } from './armList';
import { azCall, isNotFound } from './errors';
import { ROLE_ASSIGNMENTS_API } from './identity';
import { isJobsGroupName } from './names';

// The role assignments that let a cluster's identity use its Blob containers sit on the
// containers, outside the cluster's resource group: deleting the group does not take them.
// They are found by what they say about themselves: the Blob role, and a description naming
// the cluster (roleAssignments have no tags). The listing is the subscription's (List For
// Subscription includes assignments on child resources), so an assignment is found whichever
// group its storage account is in, and after its identity is gone (an autodown deletes the group).

/** Storage Blob Data Contributor: read, write, delete blobs (MOUNT writes straight to the container). */
export const ROLE_BLOB_CONTRIBUTOR = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe';
const MARK = 'Skydeck bucket access';
/** A managed-jobs controller's assignments (controllerRole.ts: on its jobs group, and on the subscription) say this instead. */
export const CONTROLLER_MARK = 'Skydeck jobs controller';
/** ...and its assignment on its jobs identity (bucketIdentity.ts ensureJobsIdentity) this. */
export const JOBS_MARK = 'Skydeck jobs identity';

/** "Skydeck bucket access; skydeck-cluster=c; skydeck-cluster-uid=u; skydeck-workspace=w". */
export function grantDescription(tags: Record<string, string>, mark = MARK): string {
  return [mark, ...[TAG_CLUSTER, TAG_UID, TAG_WORKSPACE].map((k) => `${k}=${(tags[k] ?? '').replace(/[;=]/g, '-')}`)].join('; ');
}

function tagsOf(description: unknown, mark = MARK): Record<string, string> | undefined {
  if (typeof description !== 'string' || !description.startsWith(`${mark};`)) return undefined;
  const tags: Record<string, string> = {};
  for (const part of description.split(';').slice(1)) {
    const m = /^\s*(skydeck-[a-z-]+)=(.*)$/.exec(part);
    if (m) tags[m[1]] = m[2].trim();
  }
  return tags[TAG_UID] ? tags : undefined;
}

export interface BucketGrant {
  id: string;
  /** The container's ARM id (a controller's: the subscription's). */
  scope: string;
  tags: Record<string, string>;
  /** A Blob grant on a container, a managed-jobs controller's role on the subscription, or its role on its jobs identity. */
  kind: 'bucket' | 'controller' | 'jobs';
}

/** What the sweep and down call each kind. */
export const GRANT_KIND = { bucket: 'Blob role assignment', controller: 'jobs controller role assignment', jobs: 'jobs identity role assignment' } as const;

/**
 * Every Skydeck assignment of the subscription: Blob grants (the Blob role, the bucket mark)
 * and controllers' (the controller mark on the subscription itself, whatever role id: the
 * custom role's id is the subscription's own).
 */
export async function listSkydeckGrants(c: AzureClients, holders: { principals: string[]; uid: string } = { principals: [], uid: '' }): Promise<BucketGrant[]> {
  const all = await azCall('roleAssignments.listForSubscription', () =>
    listById(c, `subscriptions/${c.subscriptionId}/providers/Microsoft.Authorization/roleAssignments`, ROLE_ASSIGNMENTS_API));
  const sub = `/subscriptions/${c.subscriptionId}`.toLowerCase();
  return all.flatMap((ra): BucketGrant[] => {
    const p = ra.properties ?? {};
    const scope = String(p.scope ?? '');
    const isBlob = String(p.roleDefinitionId ?? '').toLowerCase().endsWith(`/${ROLE_BLOB_CONTRIBUTOR}`);
    const blob = isBlob ? tagsOf(p.description) : undefined;
    if (blob && ra.id) return [{ id: ra.id, scope, tags: blob, kind: 'bucket' }];
    const ctl = scope.toLowerCase() === sub || isJobsGroupScope(scope, c.subscriptionId) ? tagsOf(p.description, CONTROLLER_MARK) : undefined;
    if (ctl && ra.id) return [{ id: ra.id, scope, tags: ctl, kind: 'controller' }];
    const jobs = /\/providers\/Microsoft\.ManagedIdentity\/userAssignedIdentities\/[^/]+$/i.test(scope) ? tagsOf(p.description, JOBS_MARK) : undefined;
    if (jobs && ra.id) return [{ id: ra.id, scope, tags: jobs, kind: 'jobs' }];
    // Any other assignment held by a controller's jobs identity (one its VM made without Skydeck's description).
    if (ra.id && holders.principals.includes(String(p.principalId ?? ''))) return [{ id: ra.id, scope, tags: { [TAG_UID]: holders.uid }, kind: isBlob ? 'bucket' : 'jobs' }];
    return [];
  });
}

/** A controller's jobs group as a scope (its compute and network role is assigned there: controllerRole.ts). */
function isJobsGroupScope(scope: string, subscription: string): boolean {
  const m = /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)$/i.exec(scope);
  return !!m && m[1].toLowerCase() === subscription.toLowerCase() && isJobsGroupName(m[2]);
}

/**
 * The `scopes` (containers) on which `principalId` holds no Storage Blob Data Contributor
 * assignment, whoever made it and whatever it says: a controller VM checks with this that this
 * machine granted its jobs identity what a job cluster mounts (it may grant nothing itself).
 */
export async function missingBlobGrants(c: AzureClients, principalId: string, scopes: string[]): Promise<string[]> {
  if (!scopes.length) return [];
  if (!/^[0-9a-f-]{36}$/i.test(principalId)) throw new ProviderError('config', `${JSON.stringify(principalId)} is not a principal id`);
  const filter = encodeURIComponent(`principalId eq '${principalId}'`);
  const held = await azCall('roleAssignments.listForSubscription', () =>
    listById(c, `subscriptions/${c.subscriptionId}/providers/Microsoft.Authorization/roleAssignments?$filter=${filter}`, ROLE_ASSIGNMENTS_API));
  const on = new Set(held.filter((ra) => ra.properties?.principalId === principalId
    && String(ra.properties?.roleDefinitionId ?? '').toLowerCase().endsWith(`/${ROLE_BLOB_CONTRIBUTOR}`)).map((ra) => String(ra.properties?.scope ?? '').toLowerCase()));
  return scopes.filter((s) => !on.has(s.toLowerCase()));
}

/** Every Skydeck bucket grant of the subscription. */
export async function listBucketGrants(c: AzureClients): Promise<BucketGrant[]> {
  return (await listSkydeckGrants(c)).filter((g) => g.kind === 'bucket');
}

/** For the leak sweep: the grants as identities, named by the container they open (a controller's and its jobs identity's: by id). */
export async function grantIdentities(c: AzureClients): Promise<TaggedIdentity[]> {
  return (await listSkydeckGrants(c)).map((g) => ({
    kind: GRANT_KIND[g.kind], name: g.kind === 'bucket' ? `${shortScope(g.scope)} (${g.id})` : g.id, tags: g.tags,
  }));
}

/** ".../storageAccounts/acct/blobServices/default/containers/c" → "acct/c". */
export function shortScope(scope: string): string {
  const m = /storageAccounts\/([^/]+)\/blobServices\/default\/containers\/([^/]+)$/i.exec(scope);
  return m ? `${m[1]}/${m[2]}` : scope;
}

/**
 * Deletes the uid's grants except `keep`, each proven gone by a GET answering 404; returns
 * what was proven gone. A grant still there after its delete is an error: the caller (a
 * teardown) must not delete the group and report the cluster gone while it lingers.
 */
export async function revokeBucketGrants(c: AzureClients, uid: string, lro: { updateIntervalInMs: number }, log?: (m: string) => void, keep: string[] = []): Promise<string[]> {
  return (await revokeGrants(c, uid, lro, log, keep, ['bucket'])).map((g) => g.id);
}

/**
 * The uid's grants of `kinds` (a teardown: all) except `keep`, deleted each with proof (GET
 * answers 404); with every assignment `principals` hold (a controller's jobs identity), whatever it says.
 */
export async function revokeGrants(
  c: AzureClients, uid: string, lro: { updateIntervalInMs: number }, log?: (m: string) => void, keep: string[] = [], kinds: BucketGrant['kind'][] = ['bucket', 'controller', 'jobs'],
  principals: string[] = [],
): Promise<BucketGrant[]> {
  const kept = new Set(keep.map((k) => k.toLowerCase()));
  const mine = (await listSkydeckGrants(c, { principals, uid })).filter((g) => kinds.includes(g.kind) && g.tags[TAG_UID] === uid && !kept.has(g.id.toLowerCase()));
  await Promise.all(mine.map(async (g) => {
    await azCall('roleAssignments.delete', async () => {
      try {
        await c.resources.resources.beginDeleteByIdAndWait(g.id.slice(1), ROLE_ASSIGNMENTS_API, lro);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    });
    const gone = await azCall('roleAssignments.get', async () => {
      try {
        await c.resources.resources.getById(g.id.slice(1), ROLE_ASSIGNMENTS_API);
        return false;
      } catch (e) {
        if (isNotFound(e)) return true;
        throw e;
      }
    });
    if (!gone) throw new ProviderError('transient', `role assignment ${g.id} is still there after its delete`);
    log?.(`azure: ${GRANT_KIND[g.kind]} on ${shortScope(g.scope)} of cluster ${uid} is gone (GET ${g.id} answers 404)`);
  }));
  return mine;
}
