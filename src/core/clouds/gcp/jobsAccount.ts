import { ProviderError, TAG_UID, TAG_WORKSPACE, type BucketAccess, type RunRequest } from '../provider';
import type { IdentityGone } from '../clusterIdentity';
import { deleteAccount, getAccount, jobsAccountId, tagsOfAccount, type BucketIdentityOptions, type ServiceAccount } from './accountTags';
import { serviceAccountEmail } from './autodownIdentity';
import { grantBucket, revokeBucket } from './bucketIam';
import { CONTROLLER } from './controllerRole';
import { iamStepError, isRestStatus } from './iamErrors';
import { gcpRest } from './iamRest';
import { editPolicy, type Policy } from './iamPolicyEdit';

// The account a managed-jobs controller's job clusters run as (their GCS buckets): one per
// controller cluster, skydeck-ja-<uid>, made by this machine at the controller's launch. The
// controller's own account may attach it to a VM, and no other account: it holds
// roles/iam.serviceAccountUser (iam.serviceAccounts.actAs) in this account's own IAM policy (IAM
// v1 projects.serviceAccounts getIamPolicy / setIamPolicy), never on the project, where it would
// reach every account (controllerRole.ts). The account holds no project role; it is granted the
// buckets of each job at its submit (controllerBuckets.ts through GcpProvider.grantBuckets) and
// nothing else, so a job cluster reaches its buckets and those of the controller's other jobs.
// It goes at the controller's down (bucketIdentity.ts deleteBucketIdentity), its policy with it.

export const SERVICE_ACCOUNT_USER = 'roles/iam.serviceAccountUser';
const MARK_JOBS = 'jobs=1';
/** Set on a controller VM (GcpProvider.controllerNodeEnv): the account its job clusters run as. */
export const JOBS_ACCOUNT_ENV = 'SKYDECK_GCP_JOBS_ACCOUNT';

export const jobsAccountEmail = (uid: string, project: string) => serviceAccountEmail(jobsAccountId(uid), project);

/** The controller's jobs account, created if missing, that `controllerEmail` (and only it, of ours) may act as. */
export async function ensureJobsAccount(o: BucketIdentityOptions, req: RunRequest, controllerEmail: string): Promise<string> {
  const id = jobsAccountId(req.uid);
  const email = serviceAccountEmail(id, o.project);
  const fix = `gcloud iam service-accounts create ${id} --project ${o.project}`;
  let sa = await getAccount(o, email, fix, CONTROLLER);
  if (sa && tagsOfAccount(sa)[TAG_UID] !== req.uid) {
    throw new ProviderError('config', `GCP: the service account ${email} exists but is not Skydeck cluster ${req.uid}'s`, `delete it (gcloud iam service-accounts delete ${email}), or launch under another cluster`);
  }
  if (!sa) {
    o.log?.(`GCP: creating the service account ${email} for the job clusters of ${req.clusterName}`);
    try {
      sa = await gcpRest<ServiceAccount>(o.c, 'iam', 'POST', `/v1/projects/${o.project}/serviceAccounts`, {
        accountId: id,
        serviceAccount: { displayName: `Skydeck jobs of cluster ${req.clusterName}`.slice(0, 100), description: `${TAG_UID}=${req.uid} ${TAG_WORKSPACE}=${req.workspaceId} ${MARK_JOBS}` },
      });
    } catch (e) {
      throw iamStepError(e, 'serviceAccounts.create', 'iam.serviceAccounts.create', o.project, fix, CONTROLLER);
    }
  }
  if (sa.disabled) throw new ProviderError('config', `GCP: the service account ${email} is disabled`, `gcloud iam service-accounts enable ${email} --project ${o.project}`);
  await ensureAccountUser(o, email, controllerEmail);
  return email;
}

/** `controllerEmail` holds roles/iam.serviceAccountUser on the account `email` (its own policy; others' bindings kept). */
async function ensureAccountUser(o: BucketIdentityOptions, email: string, controllerEmail: string): Promise<void> {
  const member = `serviceAccount:${controllerEmail}`;
  const resource = `/v1/projects/${o.project}/serviceAccounts/${email}`;
  const fix = `gcloud iam service-accounts add-iam-policy-binding ${email} --project ${o.project} --member ${member} --role ${SERVICE_ACCOUNT_USER}`;
  const wrote = await editPolicy({
    what: `the IAM policy of service account ${email}`, backoffMs: o.backoffMs, log: o.log, newAccount: controllerEmail,
    read: () => gcpRest<Policy>(o.c, 'iam', 'POST', `${resource}:getIamPolicy`, { options: { requestedPolicyVersion: 3 } }),
    write: (policy) => gcpRest(o.c, 'iam', 'POST', `${resource}:setIamPolicy`, { policy }),
    isStale: (e) => isRestStatus(e, 409, 'ABORTED'),
    change: (bindings) => {
      const plain = bindings.find((b) => b.role === SERVICE_ACCOUNT_USER && !b.condition);
      if (plain?.members?.includes(member)) return undefined;
      if (plain) plain.members = [...(plain.members ?? []), member];
      else bindings.push({ role: SERVICE_ACCOUNT_USER, members: [member] });
      return bindings;
    },
    fail: (e, step) => iamStepError(e, `serviceAccounts.${step === 'read' ? 'get' : 'set'}IamPolicy`,
      `iam.serviceAccounts.${step === 'read' ? 'get' : 'set'}IamPolicy`, o.project, fix, CONTROLLER),
  });
  if (wrote) o.log?.(`GCP: granted ${SERVICE_ACCOUNT_USER} on ${email} to ${controllerEmail}`);
}

/** Grants the buckets to the controller `uid`'s jobs account; refused (config) when it has none. */
export async function grantJobsAccount(o: BucketIdentityOptions, uid: string, access: BucketAccess[]): Promise<string> {
  const email = await existingJobsAccount(o, uid);
  for (const a of access) await grantBucket(o, a.bucket, a.prefix || undefined, email, uid);
  return email;
}

/** The controller's jobs account, which must exist (a controller launched before there were any has none). */
export async function existingJobsAccount(o: BucketIdentityOptions, uid: string): Promise<string> {
  const email = jobsAccountEmail(uid, o.project);
  const sa = await getAccount(o, email, `gcloud iam service-accounts describe ${email} --project ${o.project}`, CONTROLLER);
  if (!sa || tagsOfAccount(sa)[TAG_UID] !== uid) {
    throw new ProviderError('config', `the managed-jobs controller cluster ${uid} has no service account for its job clusters (${email}): it was launched by an older Skydeck`,
      'down the controller cluster once its jobs are done; the next jobs launch makes it again with one');
  }
  return email;
}

/**
 * Removes the jobs account of controller `uid` from each bucket's policy, deletes it (its own
 * policy, the controller's serviceAccountUser binding, goes with it) and proves it gone.
 */
export async function deleteJobsAccount(o: BucketIdentityOptions, uid: string, buckets: BucketAccess[]): Promise<IdentityGone[]> {
  const email = jobsAccountEmail(uid, o.project);
  const sa = await getAccount(o, email, `gcloud iam service-accounts delete ${email} --project ${o.project}`);
  if (!sa) return [];
  if (tagsOfAccount(sa)[TAG_UID] !== uid) {
    o.log?.(`GCP: the service account ${email} is not cluster ${uid}'s; left alone`);
    return [];
  }
  for (const b of new Set(buckets.map((x) => x.bucket))) await revokeBucket(o, b, email);
  await deleteAccount(o, email);
  return [{ kind: 'service account', name: email, proof: 'serviceAccounts.get answers 404' }];
}
