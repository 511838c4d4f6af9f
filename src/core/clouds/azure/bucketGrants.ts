import { ProviderError, TAG_CLUSTER, TAG_UID, TAG_WORKSPACE, type TaggedIdentity } from '../provider';
import type { AzureClients } from './clients';
import { listById } from './armList';
import { azCall, isNotFound } from './errors';
import { ROLE_ASSIGNMENTS_API } from './identity';

// The role assignments that let a cluster's identity use its Blob containers sit on the
// containers, outside the cluster's resource group: deleting the group does not take them.
// They are found by what they say about themselves: the Blob role, and a description naming
// the cluster (roleAssignments have no tags). The listing is the subscription's (List For
// Subscription includes assignments on child resources), so an assignment is found whichever
// group its storage account is in, and after its identity is gone (an autodown deletes the group).

/** Storage Blob Data Contributor: read, write, delete blobs (MOUNT writes straight to the container). */
export const ROLE_BLOB_CONTRIBUTOR = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe';
const MARK = 'Skydeck bucket access';

/** "Skydeck bucket access; skydeck-cluster=c; skydeck-cluster-uid=u; skydeck-workspace=w". */
export function grantDescription(tags: Record<string, string>): string {
  return [MARK, ...[TAG_CLUSTER, TAG_UID, TAG_WORKSPACE].map((k) => `${k}=${(tags[k] ?? '').replace(/[;=]/g, '-')}`)].join('; ');
}

function tagsOf(description: unknown): Record<string, string> | undefined {
  if (typeof description !== 'string' || !description.startsWith(`${MARK};`)) return undefined;
  const tags: Record<string, string> = {};
  for (const part of description.split(';').slice(1)) {
    const m = /^\s*(skydeck-[a-z-]+)=(.*)$/.exec(part);
    if (m) tags[m[1]] = m[2].trim();
  }
  return tags[TAG_UID] ? tags : undefined;
}

export interface BucketGrant {
  id: string;
  /** The container's ARM id. */
  scope: string;
  tags: Record<string, string>;
}

/** Every Skydeck bucket grant of the subscription. */
export async function listBucketGrants(c: AzureClients): Promise<BucketGrant[]> {
  const all = await azCall('roleAssignments.listForSubscription', () =>
    listById(c, `subscriptions/${c.subscriptionId}/providers/Microsoft.Authorization/roleAssignments`, ROLE_ASSIGNMENTS_API));
  return all.flatMap((ra) => {
    const p = ra.properties ?? {};
    const tags = String(p.roleDefinitionId ?? '').toLowerCase().endsWith(`/${ROLE_BLOB_CONTRIBUTOR}`) ? tagsOf(p.description) : undefined;
    return tags && ra.id ? [{ id: ra.id, scope: String(p.scope ?? ''), tags }] : [];
  });
}

/** For the leak sweep: the grants as identities, named by the container they open. */
export async function grantIdentities(c: AzureClients): Promise<TaggedIdentity[]> {
  return (await listBucketGrants(c)).map((g) => ({ kind: 'Blob role assignment', name: `${shortScope(g.scope)} (${g.id})`, tags: g.tags }));
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
  const kept = new Set(keep.map((k) => k.toLowerCase()));
  const mine = (await listBucketGrants(c)).filter((g) => g.tags[TAG_UID] === uid && !kept.has(g.id.toLowerCase()));
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
    log?.(`azure: Blob role assignment on ${shortScope(g.scope)} of cluster ${uid} is gone (GET ${g.id} answers 404)`);
  }));
  return mine.map((g) => g.id);
}
