import { ProviderError, TAG_CLUSTER, TAG_UID, TAG_WORKSPACE } from '../provider';
import type { GcpClients } from './clients';
import { BUCKETS, iamStepError, isRestStatus, type IamPurpose } from './iamErrors';
import { IAM_MAX_TRIES, iamBackoffMs, sleepMs } from './iamBackoff';
import { gcpRest } from './iamRest';

// The service accounts Skydeck makes per cluster and how each is recognized as a cluster's: its
// id (a fixed prefix and the uid's first hex digits, as many as fit in 30 characters) and its
// description (uid=, workspace=). Two kinds: the cluster's own account (skydeck-b-,
// bucketIdentity.ts) and, for a managed-jobs controller only, the account its job clusters run as
// (skydeck-ja-, jobsAccount.ts). Not skydeck-j-: that is the instance-name prefix of those job
// clusters (controllerRole.ts JOB_INSTANCE_PREFIX), and one prefix for two kinds of resource would
// be read as one thing.

export const BUCKET_ACCOUNT_PREFIX = 'skydeck-b-';
export const JOBS_ACCOUNT_PREFIX = 'skydeck-ja-';

export interface BucketIdentityOptions {
  c: GcpClients;
  project: string;
  backoffMs: number;
  log?(message: string): void;
}

export interface ServiceAccount { email?: string; displayName?: string; description?: string; disabled?: boolean }

/**
 * 6–30 of [a-z0-9-] (IAM's bound on an account id): the prefix and the uid's first hex digits that
 * fit, 20 after skydeck-b-, 19 after skydeck-ja- (76 bits: no two clusters share one).
 */
const accountId = (prefix: string, uid: string) => `${prefix}${uid.toLowerCase().replace(/[^0-9a-f]/g, '').slice(0, 30 - prefix.length)}`;
export const bucketAccountId = (uid: string) => accountId(BUCKET_ACCOUNT_PREFIX, uid);
export const jobsAccountId = (uid: string) => accountId(JOBS_ACCOUNT_PREFIX, uid);

/** The tags an account's description and display name carry (none when it is not Skydeck's). */
export function tagsOfAccount(sa: ServiceAccount): Record<string, string> {
  const field = (k: string) => new RegExp(`(?:^|\\s)${k}=(\\S+)`).exec(sa.description ?? '')?.[1];
  const uid = field(TAG_UID);
  if (!uid || ![bucketAccountId(uid), jobsAccountId(uid)].some((id) => sa.email?.startsWith(`${id}@`))) return {};
  return { [TAG_UID]: uid, [TAG_WORKSPACE]: field(TAG_WORKSPACE) ?? '?', [TAG_CLUSTER]: (sa.displayName ?? '').replace(/^Skydeck (jobs of )?cluster /, '') || '?' };
}

export async function getAccount(o: BucketIdentityOptions, email: string, fix: string, why: IamPurpose = BUCKETS): Promise<ServiceAccount | undefined> {
  try {
    return await gcpRest<ServiceAccount>(o.c, 'iam', 'GET', `/v1/projects/${o.project}/serviceAccounts/${email}`);
  } catch (e) {
    if (isRestStatus(e, 404)) return undefined;
    throw iamStepError(e, 'serviceAccounts.get', 'iam.serviceAccounts.get', o.project, fix, why);
  }
}

/** Deletes the account and proves it gone (GET → 404, waited for a bounded time). */
export async function deleteAccount(o: BucketIdentityOptions, email: string): Promise<void> {
  const fix = `gcloud iam service-accounts delete ${email} --project ${o.project}`;
  try {
    await gcpRest(o.c, 'iam', 'DELETE', `/v1/projects/${o.project}/serviceAccounts/${email}`);
  } catch (e) {
    if (!isRestStatus(e, 404)) throw iamStepError(e, 'serviceAccounts.delete', 'iam.serviceAccounts.delete', o.project, fix, BUCKETS);
  }
  for (let attempt = 1; ; attempt++) {
    if (!(await getAccount(o, email, fix))) break;
    if (attempt >= IAM_MAX_TRIES) throw new ProviderError('transient', `GCP: the service account ${email} is still listed after its deletion`);
    await sleepMs(iamBackoffMs(o.backoffMs, attempt));
  }
  o.log?.(`GCP: deleted the service account ${email} (serviceAccounts.get answers 404)`);
}
