import { isProviderError, ProviderError, type ProviderErrorKind } from '../provider';
import { ADC_FIX } from './project';
import type { OperationErrorItem } from './types';
import { GCP_GUEST_ACCELERATORS, GCP_SHIPPED } from '../../catalog/gcpShipped';

// GCP failures come two ways: an HTTP error on the call itself (rest.ts makes it a GcpApiError
// with httpStatusCode, the body's message and the google.rpc.ErrorInfo of error.details[] as
// .reason/.domain; the legacy errors[].reason decides nothing), and an error inside a
// finished Operation (Operation.error.errors[] {code, message, errorDetails[{errorInfo}]}),
// which is how capacity and most quota failures of an insert arrive. Both are classified here
// by ErrorInfo reason, then code, then message, then HTTP status.

const CAPACITY = /^(ZONE_RESOURCE_POOL_EXHAUSTED|ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS|RESOURCE_POOL_EXHAUSTED|UNSUPPORTED_OPERATION|UNAVAILABLE_RESOURCE|resourceExhausted|zoneResourcePoolExhausted)$/i;
const QUOTA = /^(QUOTA_EXCEEDED|quotaExceeded|rateLimitExceeded_quota|LIMIT_EXCEEDED)$/i;

/**
 * ErrorInfo reasons that decide the kind whatever the HTTP status and message say (Google's
 * reason catalogue for googleapis.com; compute.googleapis.com's own, which Operation errors
 * write in lower case). A per-minute rate limit's message reads "Quota exceeded for quota
 * metric …" and a concurrency limit comes as HTTP 403: both pass by themselves, so transient.
 */
const BY_REASON: Record<string, ProviderErrorKind> = {
  RESOURCE_AVAILABILITY: 'capacity',
  RATE_LIMIT_EXCEEDED: 'transient', CONCURRENT_OPERATIONS_QUOTA_EXCEEDED: 'transient',
  SERVICE_DISABLED: 'auth', BILLING_DISABLED: 'auth', IAM_PERMISSION_DENIED: 'auth', ACCESS_TOKEN_SCOPE_INSUFFICIENT: 'auth',
  ACCESS_TOKEN_EXPIRED: 'auth', CREDENTIALS_MISSING: 'auth', CONSUMER_INVALID: 'auth', USER_PROJECT_DENIED: 'auth',
};

function kindOfReason(reason: string | null | undefined): ProviderErrorKind | undefined {
  return reason ? BY_REASON[reason.toUpperCase()] : undefined;
}

interface ApiErrorLike {
  httpStatusCode?: number;
  /** HTTP status (some errors) or the google.rpc.Code name (GcpApiError): only a number is read. */
  status?: number | string;
  reason?: string;
  message?: string;
}

export type { OperationErrorItem } from './types';

function kindOfCode(code: string, message: string): ProviderErrorKind | undefined {
  if (CAPACITY.test(code) || /does not have enough resources|resource pool exhausted|currently unavailable in the .* zone/i.test(message)) return 'capacity';
  if (QUOTA.test(code) || /quota .*exceeded|exceeded .*quota/i.test(message)) return 'quota';
  return undefined;
}

/** A finished Operation's error as a ProviderError (the first item decides the kind). */
export function operationError(action: string, errors: OperationErrorItem[]): ProviderError {
  const first = errors[0] ?? {};
  const code = first.code ?? 'UNKNOWN';
  const message = first.message ?? 'operation failed';
  const reason = first.errorDetails?.find((d) => d.errorInfo?.reason)?.errorInfo?.reason ?? undefined;
  const kind = kindOfReason(reason) ?? kindOfCode(code, message)
    ?? (/^(RESOURCE_NOT_FOUND|INVALID|BAD_REQUEST|NOT_FOUND)/i.test(code) ? 'config' : /PERMISSION|FORBIDDEN/i.test(code) ? 'auth' : 'transient');
  return new ProviderError(kind, `${action}: ${code}: ${message}${reason ? ` (${reason})` : ''}`, hintFor(kind, message, reason));
}

/**
 * GCP answers "does not exist in zone" both for a typo and for a real type that this zone
 * lacks (g2, a3 and most GPUs are in a few zones only). A name Skydeck knows exists elsewhere
 * is read as capacity, so the loop tries the next zone; an unknown name stays config.
 */
function missingInZone(message: string): boolean {
  const type = /Machine type with name '([^']+)' does not exist in zone/.exec(message)?.[1];
  if (type) return GCP_SHIPPED.some((t) => t.name === type);
  const acc = /Accelerator type '([^']+)' does not exist in zone/.exec(message)?.[1];
  return !!acc && Object.values(GCP_GUEST_ACCELERATORS).includes(acc);
}

export function classifyGcpError(e: unknown): ProviderErrorKind {
  const x = (e ?? {}) as ApiErrorLike;
  const http = x.httpStatusCode ?? (typeof x.status === 'number' ? x.status : undefined);
  const message = x.message ?? '';
  const byReason = kindOfReason(x.reason);
  if (byReason) return byReason;
  const byCode = kindOfCode(x.reason ?? '', message);
  if (byCode) return byCode;
  if (http === 400 && missingInZone(message)) return 'capacity';
  if (http === 401 || http === 403) return 'auth';
  if (http === 429 || (http !== undefined && http >= 500)) return 'transient';
  if (http === 400 || http === 404 || http === 409 || http === 412) return 'config';
  // No HTTP answer: network trouble, or the auth library could not find/refresh credentials.
  if (/could not load the default credentials|invalid_grant|unable to detect a project id|reauth/i.test(message)) return 'auth';
  if (http !== undefined) return 'config';
  return 'transient';
}

function hintFor(kind: ProviderErrorKind, message: string, reason?: string): string | undefined {
  if (kind === 'auth') {
    if (/project id/i.test(message)) return 'set a project: gcloud config set project <PROJECT_ID>';
    if (reason === 'SERVICE_DISABLED' || /has not been used|is disabled/i.test(message)) return 'enable the API: gcloud services enable compute.googleapis.com';
    if (reason === 'BILLING_DISABLED') return 'link a billing account to the project (console → Billing)';
    return `run "${ADC_FIX}" (or set GOOGLE_APPLICATION_CREDENTIALS), and check the account has Compute Admin on the project`;
  }
  if (kind === 'quota') return 'request more quota (console → IAM & Admin → Quotas), or use another region, smaller machines or on-demand instead of spot';
  if (kind === 'config' && /machineType|machine type/i.test(message)) return 'check instance_type: it must exist in the zone launched in (gcloud compute machine-types list --zones ZONE)';
  if (kind === 'config' && /image/i.test(message)) return 'check image_id: e.g. projects/ubuntu-os-cloud/global/images/family/ubuntu-2204-lts';
  return undefined;
}

/** The ProviderError for a failed call (GcpApiError, auth library, network); the message names the call, never credentials. */
export function toGcpError(e: unknown, action?: string): ProviderError {
  if (isProviderError(e)) return e;
  const kind = classifyGcpError(e);
  const x = (e ?? {}) as ApiErrorLike;
  const msg = (x.message ?? String(e)).split('\n')[0];
  const said = [x.httpStatusCode ? `HTTP ${x.httpStatusCode}` : '', x.reason ?? ''].filter(Boolean).join(', ');
  return new ProviderError(kind, `${action ? `${action}: ` : ''}${msg}${said ? ` (${said})` : ''}`, hintFor(kind, msg, x.reason));
}

/** Runs one Compute call and rethrows its failure as a typed ProviderError. */
export async function gcpCall<T>(action: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toGcpError(e, action);
  }
}

/** A 404 from the API (already deleted, never existed). */
export function isNotFound(e: unknown): boolean {
  return (e as ApiErrorLike | undefined)?.httpStatusCode === 404;
}

/** A 409 from the API: what a create asked for exists already (made meanwhile by another call). */
export function isAlreadyExists(e: unknown): boolean {
  return (e as ApiErrorLike | undefined)?.httpStatusCode === 409;
}
