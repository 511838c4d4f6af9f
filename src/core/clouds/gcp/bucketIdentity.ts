import { ProviderError, TAG_UID, TAG_WORKSPACE, type BucketAccess, type RunRequest, type TaggedIdentity } from '../provider';
import type { IdentityGone } from '../clusterIdentity';
import { grantAutodownRole, autodownRole, serviceAccountEmail } from './autodownIdentity';
import { bucketAccountId, deleteAccount, getAccount, tagsOfAccount, type BucketIdentityOptions, type ServiceAccount } from './accountTags';
import { grantBucket, revokeBucket } from './bucketIam';
import { CONTROLLER, CONTROLLER_ROLE, JOB_CLUSTERS_CONDITION, JOB_CLUSTERS_ROLE, controllerRole, jobClustersRole } from './controllerRole';
import { ensureCustomRole, ensureProjectBinding, removeProjectBinding } from './customRole';
import { deleteJobsAccount, ensureJobsAccount } from './jobsAccount';
import { AUTODOWN, BUCKETS, iamStepError } from './iamErrors';
import { gcpRest } from './iamRest';
import { pages } from './rest';

// The identity of a cluster's nodes for its GCS buckets: one service account per cluster
// (IAM v1 projects.serviceAccounts create/get/delete/list), granted objectAdmin on each bucket
// the task names (bucketIam.ts) and on nothing else; every node runs as it. Its description
// carries the cluster's uid and workspace, so the sweep can tell whose it is. A managed-jobs
// controller cluster's VM runs as it too, bound on the project to the controller's two roles
// (controllerRole.ts: one plain, one under a condition on job clusters' instance names): one
// identity per cluster, whatever it is for. A controller also gets the account its job clusters
// run as (jobsAccount.ts), made and deleted with its own.

const MARK_AUTODOWN = 'autodown=1';
const MARK_CONTROLLER = 'controller=1';
/** What the sweep and the down call the project binding they remove. */
export const BINDING_KIND = 'project role binding';

export const gcsAccess = (access: BucketAccess[] | undefined) => (access ?? []).filter((a) => a.store === 'gcs');

/** Whether the request's nodes get the cluster's own account: GCS mounts, or a managed-jobs controller. */
export const needsClusterAccount = (req: RunRequest) => gcsAccess(req.placement.bucketAccess).length > 0 || !!req.placement.jobsController;

/**
 * The cluster's account, created if missing and granted the task's GCS buckets (and the
 * autodown role when its head deletes the cluster, the controller's two roles on a managed-jobs
 * controller: a VM carries one account). Undefined when the task names no GCS bucket and is no
 * controller. An account of the id that is not this cluster's is refused.
 */
export async function ensureBucketIdentity(o: BucketIdentityOptions, req: RunRequest): Promise<string | undefined> {
  const buckets = gcsAccess(req.placement.bucketAccess);
  const controller = !!req.placement.jobsController;
  if (!buckets.length && !controller) return undefined;
  const id = bucketAccountId(req.uid);
  const email = serviceAccountEmail(id, o.project);
  const fix = `gcloud iam service-accounts create ${id} --project ${o.project}`;
  const why = controller && !buckets.length ? CONTROLLER : BUCKETS;
  let sa = await getAccount(o, email, fix, why);
  if (sa && tagsOfAccount(sa)[TAG_UID] !== req.uid) {
    throw new ProviderError('config', `GCP: the service account ${email} exists but is not Skydeck cluster ${req.uid}'s`, `delete it (gcloud iam service-accounts delete ${email}), or launch under another cluster`);
  }
  if (!sa) {
    o.log?.(`GCP: creating the service account ${email} for ${controller ? 'the managed-jobs controller' : 'the buckets of'} ${req.clusterName}`);
    const description = [`${TAG_UID}=${req.uid}`, `${TAG_WORKSPACE}=${req.workspaceId}`, ...(req.autostop?.down ? [MARK_AUTODOWN] : []),
      ...(controller ? [MARK_CONTROLLER] : [])].join(' ');
    try {
      sa = await gcpRest<ServiceAccount>(o.c, 'iam', 'POST', `/v1/projects/${o.project}/serviceAccounts`, {
        accountId: id, serviceAccount: { displayName: `Skydeck cluster ${req.clusterName}`.slice(0, 100), description },
      });
    } catch (e) {
      throw iamStepError(e, 'serviceAccounts.create', 'iam.serviceAccounts.create', o.project, fix, why);
    }
  }
  if (sa.disabled) throw new ProviderError('config', `GCP: the service account ${email} is disabled`, `gcloud iam service-accounts enable ${email} --project ${o.project}`);
  if (controller && !(sa.description ?? '').split(' ').includes(MARK_CONTROLLER)) {
    // Its down removes the project binding only when the account says it has one.
    throw new ProviderError('config', `GCP: the service account ${email} was not made for a managed-jobs controller`, `delete it (gcloud iam service-accounts delete ${email}), or launch under another cluster`);
  }
  for (const b of buckets) await grantBucket(o, b.bucket, b.prefix || undefined, email, req.uid);
  if (req.autostop?.down) await grantAutodownRole(o, email);
  if (controller) {
    // Checked every launch: a role someone widened (or narrowed) is set back to exactly the list,
    // and the instance role's binding to exactly its condition (an older plain one is replaced).
    await ensureCustomRole(o, CONTROLLER_ROLE);
    await ensureCustomRole(o, JOB_CLUSTERS_ROLE);
    await ensureProjectBinding(o, controllerRole(o.project), email, CONTROLLER);
    await ensureProjectBinding(o, jobClustersRole(o.project), email, CONTROLLER, JOB_CLUSTERS_CONDITION);
    await ensureJobsAccount(o, req, email);
  }
  return email;
}

/**
 * Removes the account from each bucket's policy (and from the project's roles it was given:
 * autodown, the managed-jobs controller; each proved absent by reading the policy again),
 * deletes it and proves it gone (GET → 404). Errors are thrown for the caller to report.
 * Returns what was proved gone: nothing when there was no account (or not this cluster's).
 */
export async function deleteBucketIdentity(o: BucketIdentityOptions, uid: string, buckets: BucketAccess[] | undefined): Promise<IdentityGone[]> {
  const email = serviceAccountEmail(bucketAccountId(uid), o.project);
  const sa = await getAccount(o, email, `gcloud iam service-accounts delete ${email} --project ${o.project}`);
  // A controller's jobs account whose controller account went first (another tool's delete) goes too.
  if (!sa) return deleteJobsAccount(o, uid, gcsAccess(buckets));
  if (tagsOfAccount(sa)[TAG_UID] !== uid) {
    o.log?.(`GCP: the service account ${email} is not cluster ${uid}'s; left alone`);
    return [];
  }
  const marks = (sa.description ?? '').split(' ');
  // A controller's jobs account first: gone while the account that may act as it still exists.
  const gone: IdentityGone[] = marks.includes(MARK_CONTROLLER) ? await deleteJobsAccount(o, uid, gcsAccess(buckets)) : [];
  for (const b of new Set(gcsAccess(buckets).map((x) => x.bucket))) await revokeBucket(o, b, email);
  const roles = [...(marks.includes(MARK_AUTODOWN) ? [[autodownRole(o.project), AUTODOWN] as const] : []),
    ...(marks.includes(MARK_CONTROLLER) ? [[jobClustersRole(o.project), CONTROLLER] as const, [controllerRole(o.project), CONTROLLER] as const] : [])];
  for (const [role, purpose] of roles) {
    await removeProjectBinding(o, role, email, purpose);
    gone.push({ kind: BINDING_KIND, name: `${role} of ${email}`, proof: 'projects.getIamPolicy shows no such binding' });
  }
  await deleteAccount(o, email);
  gone.push({ kind: 'service account', name: email, proof: 'serviceAccounts.get answers 404' });
  return gone;
}

/**
 * After a failed launch call: its account goes unless an instance of the uid (an earlier
 * launch's) still runs as it. A failure here is logged; the launch's own error is what matters.
 */
export async function undoBucketIdentity(o: BucketIdentityOptions, req: RunRequest, anyInstance: () => Promise<boolean>): Promise<void> {
  if (!needsClusterAccount(req)) return;
  try {
    if (!(await anyInstance())) await deleteBucketIdentity(o, req.uid, req.placement.bucketAccess);
  } catch (e) {
    o.log?.(`GCP: the bucket identity of ${req.uid} is left after the failed launch (the down removes it): ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Skydeck's per-cluster bucket accounts of the project (projects.serviceAccounts.list, every page). */
export async function listBucketIdentities(o: Pick<BucketIdentityOptions, 'c' | 'project'>): Promise<TaggedIdentity[]> {
  const out: TaggedIdentity[] = [];
  const path = `/v1/projects/${o.project}/serviceAccounts`;
  for await (const page of pages((pageToken) => gcpRest<{ accounts?: ServiceAccount[]; nextPageToken?: string }>(
    o.c, 'iam', 'GET', `${path}?pageSize=100${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`))) {
    for (const sa of page.accounts ?? []) {
      const tags = tagsOfAccount(sa);
      if (tags[TAG_UID]) out.push({ kind: 'service account', name: sa.email!, tags });
    }
  }
  return out;
}
