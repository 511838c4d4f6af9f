// Deleting a cluster's bucket role and instance profile where a caller waits for the answer
// (down, the leak sweep's delete), with proof: IAM itself says each is gone afterwards.
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { IAMClient } from '@aws-sdk/client-iam';
import type { IdentityRelease, ReleaseOptions } from '../clusterIdentity';
import { profileNameOf } from './bucketPolicy';
import { deleteBucketProfile, getProfile, getRole, PROFILE_KIND as PROFILE, ROLE_KIND as ROLE } from './bucketRole';
import type { CleanupWatchers } from './cleanupWatchers';
import { BOUNDARY_KIND as BOUNDARY, boundaryPresent } from './controllerBoundary';

/**
 * What of the uid's role and profile exists now (by name; ownership is checked by the delete),
 * and the managed-jobs controller boundary `boundary` (the uid's own, whether or not it is a controller's).
 */
async function present(iam: IAMClient, name: string, boundary: string): Promise<string[]> {
  const [role, profile, bound] = await Promise.all([getRole(iam, name), getProfile(iam, name), boundaryPresent(iam, boundary)]);
  return [...(profile ? [PROFILE] : []), ...(role ? [ROLE] : []), ...(bound ? [BOUNDARY] : [])];
}

const PROOF: Record<string, string> = { [ROLE]: 'GetRole', [PROFILE]: 'GetInstanceProfile', [BOUNDARY]: 'GetPolicy' };

/** Each kind that was there, as proved gone (or not) by a fresh Get. */
async function proof(iam: IAMClient, name: string, boundary: string, kinds: string[], why: string): Promise<IdentityRelease> {
  const still = await present(iam, name, boundary);
  const out: IdentityRelease = { gone: [], left: [] };
  for (const kind of kinds) {
    const what = kind === BOUNDARY ? boundary.slice(boundary.lastIndexOf('/') + 1) : name;
    // The boundary is deleted only once no role carries it (and only when tagged as the uid's): its own why.
    const whyLeft = kind === BOUNDARY && !still.includes(ROLE) ? 'a job-cluster role still carries it, or it is not tagged as this cluster\'s (the log says which)' : why;
    if (still.includes(kind)) out.left.push({ kind, name: what, why: whyLeft });
    else out.gone.push({ kind, name: what, proof: `${PROOF[kind]} → NoSuchEntity` });
  }
  return out;
}

/**
 * After a terminate the cluster's watcher deletes the role once every instance is really
 * terminated (a live node keeps its bucket access until then). This waits for that watcher,
 * bounded, passing on why it still waits, then proves what it deleted.
 */
export async function releaseBucketIdentity(
  iam: IAMClient, ec2: EC2Client, watchers: CleanupWatchers, uid: string, opts: ReleaseOptions, boundary: string,
): Promise<IdentityRelease> {
  const name = profileNameOf(uid);
  const now = await present(iam, name, boundary);
  // The watcher may have deleted them already (EC2 ended the instances quickly): still named.
  const kinds = [...new Set([...watchers.takeDeleted(uid), ...now])];
  if (!kinds.length) return { gone: [], left: [] };
  let r: Awaited<ReturnType<CleanupWatchers['wait']>> = 'deleted';
  if (now.length) {
    opts.progress(`Deleting ${ROLE} ${name} once the instances are terminated`);
    r = await watchers.wait(ec2, uid, opts.timeoutMs, (m) => opts.progress(`${name}: ${m}`));
  }
  const why = r === 'timeout' ? `the instances were not all terminated within ${Math.round(opts.timeoutMs / 1000)} s`
    : r === 'superseded' ? 'a new launch of the cluster uses it'
      : r === 'live' ? 'the cloud\'s clean-up (security group first) did not finish within its time limit' : 'it is not tagged as this cluster\'s';
  return proof(iam, name, boundary, kinds, why);
}

/** A stray's role and profile, deleted now (the caller proved its instances gone), with proof. */
export async function deleteStrayBucketIdentity(iam: IAMClient, uid: string, log: (m: string) => void, boundary: string): Promise<IdentityRelease> {
  const name = profileNameOf(uid);
  const kinds = await present(iam, name, boundary);
  if (!kinds.length) return { gone: [], left: [] };
  const ours = await deleteBucketProfile(iam, uid, log, [], boundary);
  return proof(iam, name, boundary, kinds, ours ? 'IAM still lists it after the delete' : 'it is not tagged as this cluster\'s, so Skydeck leaves it alone');
}
