import { ProviderError } from '../provider';
import { toGcpError } from './errors';
import { GcpApiError } from './rest';

// What goes wrong while setting up the autodown identity, said so a user can act on it: the
// permission that is missing and the one gcloud command (for them or an admin) that fixes it.

/** Whose set-up failed, for the message, and what the user can do instead. */
export interface IamPurpose { label: string; instead: string }
export const AUTODOWN: IamPurpose = { label: 'GCP autodown', instead: 'or launch without --down (autostop alone needs no identity)' };
export const BUCKETS: IamPurpose = { label: 'GCP bucket access', instead: 'an admin runs it once per cluster, or the task mounts no GCS bucket' };

export function isRestStatus(e: unknown, http: number, status?: string): boolean {
  return e instanceof GcpApiError && e.httpStatusCode === http && (!status || e.status === status);
}

/**
 * A service account just created is not yet known everywhere (IAM is eventually consistent):
 * setIamPolicy answers 400 "Service account X does not exist.", instances.insert 400 "Invalid
 * value for field 'resource.serviceAccounts[0].email' … does not exist" or 404 "was not found".
 */
export function isAccountNotVisible(e: unknown, email: string): boolean {
  const x = (e ?? {}) as { httpStatusCode?: number; message?: string };
  const msg = x.message ?? '';
  return (x.httpStatusCode === 400 || x.httpStatusCode === 404) && msg.includes(email) && /does not exist|was not found|not found/i.test(msg);
}

/** instances.insert refused because the caller may not attach the account (iam.serviceAccounts.actAs). */
export function isActAsDenied(e: unknown): boolean {
  const x = (e ?? {}) as { httpStatusCode?: number; message?: string };
  return (x.httpStatusCode === 400 || x.httpStatusCode === 403)
    && /iam\.serviceAccounts\.actAs|does not have access to service account|iam\.serviceAccountUser/i.test(x.message ?? '');
}

export function actAsError(email: string, project: string, why: IamPurpose = AUTODOWN): ProviderError {
  return new ProviderError('auth',
    `${why.label}: your account may not attach the service account ${email} to a VM (missing permission iam.serviceAccounts.actAs)`,
    `gcloud iam service-accounts add-iam-policy-binding ${email} --project ${project} --member user:<YOUR_EMAIL> --role roles/iam.serviceAccountUser   (${why.instead})`);
}

/**
 * A failed IAM / Resource Manager call of step `action`. A refusal names `permission` and
 * `fix` (what an admin runs once; later launches then only read); a disabled API says which.
 */
export function iamStepError(e: unknown, action: string, permission: string, project: string, fix: string, why: IamPurpose = AUTODOWN): ProviderError {
  if (e instanceof GcpApiError && e.httpStatusCode === 403) {
    if (/has not been used|is disabled|SERVICE_DISABLED/i.test(e.message)) {
      return new ProviderError('auth', `${why.label}: ${action}: an API is not enabled for project ${project} (${e.message})`,
        `gcloud services enable iam.googleapis.com cloudresourcemanager.googleapis.com --project ${project}`);
    }
    return new ProviderError('auth', `${why.label}: ${action}: your account lacks permission ${permission} on project ${project} (${e.message})`,
      `${fix}   (${why.instead})`);
  }
  // Others kept changing the policy through every try: nothing is wrong with the request.
  if (isRestStatus(e, 409, 'ABORTED')) return new ProviderError('transient', `${why.label}: ${action}: ${e instanceof Error ? e.message : String(e)}`);
  return toGcpError(e, action);
}
