import { ProviderError, TAG_UID, type BucketAccess, type ClusterRef } from '../provider';
import type { BucketGrant } from '../clusterIdentity';
import { serviceAccountEmail } from './autodownIdentity';
import { gcsAccess } from './bucketIdentity';
import { bucketAccountId, getAccount, tagsOfAccount, type BucketIdentityOptions } from './accountTags';
import { grantBucket } from './bucketIam';
import { grantJobsAccount } from './jobsAccount';

// A cluster reused by launch or exec with GCS buckets its service account was not granted at
// creation: the same grant is made on every bucket of the task (a read-modify-write that writes
// nothing where the binding is there already, so a grant cut short by a crash is finished by
// the next one); nothing is taken away. The caller records the union on the row first
// (ops/bucketGrant.ts), so the down that revokes the account's bindings knows every bucket.
// A managed-jobs controller's buckets (controllerBuckets.ts) go to both of its accounts: its own
// (the VM looks a bucket up, uploads a named bucket's local source) and the one its job clusters
// run as (jobsAccount.ts).

const key = (a: BucketAccess) => `${a.bucket}/${a.prefix ?? ''}`;

export async function grantBucketsToAccount(o: BucketIdentityOptions, ref: ClusterRef, access: BucketAccess[], already: BucketAccess[]): Promise<BucketGrant> {
  const email = serviceAccountEmail(bucketAccountId(ref.uid), o.project);
  const sa = await getAccount(o, email, `gcloud iam service-accounts describe ${email} --project ${o.project}`);
  if (!sa || tagsOfAccount(sa)[TAG_UID] !== ref.uid) {
    throw new ProviderError('config', `the nodes of cluster ${ref.uid} do not run as a Skydeck bucket service account (the cluster was launched without GCS mounts)`,
      'a running VM cannot be given another account: relaunch it with the buckets named in the task');
  }
  const had = new Set(gcsAccess(already).map(key));
  const fresh = gcsAccess(access).filter((a) => !had.has(key(a)));
  for (const a of gcsAccess(access)) await grantBucket(o, a.bucket, a.prefix || undefined, email, ref.uid);
  const jobs = ref.jobsController ? await grantJobsAccount(o, ref.uid, gcsAccess(access)) : undefined;
  return { identity: `service account ${email}${jobs ? ` and its job clusters' ${jobs}` : ''}`, changed: fresh.length > 0 };
}
