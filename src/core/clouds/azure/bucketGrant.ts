import { ProviderError, TAG_UID, type BucketAccess, type ClusterRef } from '../provider';
import type { BucketGrant } from '../clusterIdentity';
import type { AzureClients } from './clients';
import { bucketIdentityId, BUCKET_IDENTITY, containerScopes, containersOf, MI_API } from './bucketIdentity';
import { grantDescription, listBucketGrants, ROLE_BLOB_CONTRIBUTOR } from './bucketGrants';
import { isNotFound, toAzureError } from './errors';
import { assignmentId, putAssignment } from './identity';

// A cluster reused by launch or exec with containers its identity was not given at creation:
// the same grant as at launch (Storage Blob Data Contributor on each container) is added for
// the new ones; nothing is taken away (the running jobs may still use the old ones). The
// grants are found by their description at down, so they need no record of their own.

export async function grantContainers(c: AzureClients, ref: ClusterRef, access: BucketAccess[], lro: { updateIntervalInMs: number }): Promise<BucketGrant> {
  const id = bucketIdentityId(c.subscriptionId, ref.uid);
  const identity = `managed identity ${BUCKET_IDENTITY} of cluster ${ref.uid}`;
  let made: { tags?: Record<string, string>; properties?: unknown };
  try {
    made = await c.resources.resources.getById(id.slice(1), MI_API);
  } catch (e) {
    if (!isNotFound(e)) throw toAzureError(e, 'userAssignedIdentities.get');
    throw new ProviderError('config', `the nodes of cluster ${ref.uid} have no ${BUCKET_IDENTITY} identity (the cluster was launched without Azure Blob mounts)`,
      'its VMs cannot be given one while they run: relaunch it with the containers named in the task');
  }
  const principalId = (made.properties as { principalId?: string } | undefined)?.principalId;
  if (!principalId || made.tags?.[TAG_UID] !== ref.uid) throw new ProviderError('config', `${id} is not cluster ${ref.uid}'s bucket identity`);
  const scopes = await containerScopes(c, containersOf(access));
  const have = new Set((await listBucketGrants(c)).filter((g) => g.tags[TAG_UID] === ref.uid).map((g) => g.id.toLowerCase()));
  const missing = scopes.filter((s) => !have.has(assignmentId(s, principalId, ROLE_BLOB_CONTRIBUTOR).toLowerCase()));
  const description = grantDescription(made.tags ?? {});
  for (const scope of missing) {
    await putAssignment({ c, principalId, lro, description }, scope, ROLE_BLOB_CONTRIBUTOR).catch((e) => {
      throw toAzureError(e, 'roleAssignments.create');
    });
  }
  return { identity, changed: missing.length > 0 };
}
