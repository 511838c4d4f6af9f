import { ProviderError, TAG_UID, type BucketAccess, type ClusterRef } from '../provider';
import type { BucketGrant } from '../clusterIdentity';
import type { AzureClients } from './clients';
import { bucketIdentityId, BUCKET_IDENTITY, containerScopes, containersOf, JOBS_IDENTITY, jobsIdentityId, MI_API, notGranted, TAG_JOBS_IDENTITY } from './bucketIdentity';
import { grantDescription, listBucketGrants, missingBlobGrants, ROLE_BLOB_CONTRIBUTOR } from './bucketGrants';
import { isNotFound, toAzureError } from './errors';
import { assignmentId, putAssignment } from './identity';

// A cluster reused by launch or exec with containers its identity was not given at creation:
// the same grant as at launch (Storage Blob Data Contributor on each container) is added for
// the new ones; nothing is taken away (the running jobs may still use the old ones). The
// grants are found by their description at down, so they need no record of their own.
// A controller's job clusters read with the controller's jobs identity (bucketIdentity.ts):
// from this machine, a controller's containers (a submitted job's, controllerBuckets.ts) go to
// its own identity (the VM touches them itself) and to its jobs identity (the job clusters
// mount them). On the controller VM (`jobsIdentity` set) nothing is granted: the VM makes no
// role assignment (controllerRole.ts), so a container the jobs identity was not granted at
// submit is refused, naming it.

type Mi = { tags?: Record<string, string>; properties?: unknown };

async function getIdentity(c: AzureClients, id: string): Promise<Mi | undefined> {
  try {
    return await c.resources.resources.getById(id.slice(1), MI_API);
  } catch (e) {
    if (!isNotFound(e)) throw toAzureError(e, 'userAssignedIdentities.get');
    return undefined;
  }
}

export async function grantContainers(c: AzureClients, ref: ClusterRef, access: BucketAccess[], lro: { updateIntervalInMs: number }, jobsIdentity?: string): Promise<BucketGrant> {
  const targets: { id: string; name: string; mi: Mi }[] = [];
  if (jobsIdentity) {
    const mi = await getIdentity(c, jobsIdentity);
    if (!mi || mi.tags?.[TAG_JOBS_IDENTITY] !== 'true') throw new ProviderError('config', `${jobsIdentity} is not this controller's jobs identity`, 'launch the managed-jobs controller again from your machine');
    targets.push({ id: jobsIdentity, name: `managed identity ${JOBS_IDENTITY} of the jobs controller`, mi });
  } else {
    const id = bucketIdentityId(c.subscriptionId, ref.uid);
    const mi = await getIdentity(c, id);
    if (!mi) {
      throw new ProviderError('config', `the nodes of cluster ${ref.uid} have no ${BUCKET_IDENTITY} identity (the cluster was launched without Azure Blob mounts)`,
        'its VMs cannot be given one while they run: relaunch it with the containers named in the task');
    }
    if (mi.tags?.[TAG_UID] !== ref.uid) throw new ProviderError('config', `${id} is not cluster ${ref.uid}'s bucket identity`);
    targets.push({ id, name: `managed identity ${BUCKET_IDENTITY} of cluster ${ref.uid}`, mi });
    // A controller launched before jobs identities existed has none: its job clusters make their own.
    const jobs = ref.jobsController ? await getIdentity(c, jobsIdentityId(c.subscriptionId, ref.uid)) : undefined;
    if (jobs && jobs.tags?.[TAG_UID] === ref.uid) targets.push({ id: jobsIdentityId(c.subscriptionId, ref.uid), name: `${JOBS_IDENTITY}`, mi: jobs });
  }
  const scopes = await containerScopes(c, containersOf(access));
  if (jobsIdentity) {
    const principalId = (targets[0].mi.properties as { principalId?: string } | undefined)?.principalId;
    if (!principalId) throw new ProviderError('config', `${jobsIdentity} has no principal id`);
    const missing = await missingBlobGrants(c, principalId, scopes);
    if (missing.length) throw notGranted(missing);
    return { identity: targets[0].name, changed: false };
  }
  const have = new Set((await listBucketGrants(c)).map((g) => g.id.toLowerCase()));
  let changed = false;
  for (const t of targets) {
    const principalId = (t.mi.properties as { principalId?: string } | undefined)?.principalId;
    if (!principalId) throw new ProviderError('config', `${t.id} has no principal id`);
    const missing = scopes.filter((s) => !have.has(assignmentId(s, principalId, ROLE_BLOB_CONTRIBUTOR).toLowerCase()));
    const description = grantDescription(t.mi.tags ?? {});
    for (const scope of missing) {
      await putAssignment({ c, principalId, lro, description }, scope, ROLE_BLOB_CONTRIBUTOR).catch((e) => {
        throw toAzureError(e, 'roleAssignments.create');
      });
    }
    changed ||= missing.length > 0;
  }
  return { identity: targets.map((t) => t.name).join(' and '), changed };
}

/** Microsoft.Storage (azure-rest-api-specs: storage stable 2023-05-01): blob containers' ARM reads. */
const STORAGE_API = '2023-05-01';

/**
 * From this machine, before a submit's grant: each container a managed job gives by `name:`
 * (`mustExist`) is there. The grant sits on the container, so a missing one cannot be granted,
 * and the controller may not create it (nor grant it once made): refused with the fix.
 */
export async function checkNamedContainers(c: AzureClients, access: BucketAccess[]): Promise<void> {
  const named = access.filter((a) => a.store === 'azure' && a.mustExist);
  const containers = containersOf(named);
  // Its hint goes into the message: the caller's hint is for a cluster's own identity (relaunch).
  const scopes = await containerScopes(c, containers).catch((e: unknown) => {
    throw e instanceof ProviderError && e.hint ? new ProviderError(e.kind, `${e.message}: ${e.hint}`) : e;
  });
  await Promise.all(scopes.map(async (scope, i) => {
    try {
      await c.resources.resources.getById(scope.slice(1), STORAGE_API);
    } catch (e) {
      if (!isNotFound(e)) throw toAzureError(e, 'blobContainers.get');
      const { account, container } = containers[i];
      throw new ProviderError('config', `Azure container ${container} (file_mounts {name: ${container}, store: azure}) does not exist in storage account ${account} `
        + `(AZURE_STORAGE_ACCOUNT) of subscription ${c.subscriptionId}; a managed job's container given by name must exist before it is submitted `
        + `(its grant sits on the container, and the controller may not create one): create it (az storage container create --account-name ${account} --name ${container} --auth-mode login), `
        + 'or give its URL (https://<account>.blob.core.windows.net/<container>) if it is in another account');
    }
  }));
}
