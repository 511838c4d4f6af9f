import { isProviderError, ProviderError, type ProviderErrorKind } from '../provider';

// EC2 error codes by what the provision loop should do about them. Capacity and quota move on
// to the next zone; auth and config stop (another zone will not fix them); transient retries.
const CAPACITY = new Set([
  'InsufficientInstanceCapacity', 'InsufficientHostCapacity', 'InsufficientReservedInstanceCapacity',
  'InsufficientCapacity', 'InsufficientCapacityOnHost', 'Unsupported', 'SpotMaxPriceTooLow', 'InsufficientFreeAddressesInSubnet',
]);
const QUOTA = new Set([
  'VcpuLimitExceeded', 'InstanceLimitExceeded', 'MaxSpotInstanceCountExceeded', 'SpotInstanceLimitExceeded',
  'ResourceLimitExceeded', 'VolumeLimitExceeded', 'SecurityGroupLimitExceeded', 'RulesPerSecurityGroupLimitExceeded',
  'AddressLimitExceeded',
]);
const AUTH = new Set([
  'AuthFailure', 'UnauthorizedOperation', 'InvalidClientTokenId', 'SignatureDoesNotMatch', 'ExpiredToken',
  'RequestExpired', 'OptInRequired', 'Blocked', 'CredentialsProviderError', 'TokenProviderError', 'AccessDenied',
]);
const TRANSIENT = new Set([
  'Throttling', 'ThrottlingException', 'RequestLimitExceeded', 'InternalError', 'InternalFailure', 'ServiceUnavailable',
  'Unavailable', 'TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT',
  'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'NetworkingError',
]);

const LOGIN_HINT = 'set AWS_PROFILE (or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY), run "aws configure", or "aws sso login" for SSO profiles';

interface AwsLikeError {
  name?: string;
  code?: string;
  Code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

export function awsErrorCode(e: unknown): string {
  const x = (e ?? {}) as AwsLikeError;
  return x.Code ?? x.code ?? x.name ?? 'Error';
}

/** What kind of failure an SDK error is; `action` names the EC2 call for permission hints. */
export function classifyAwsError(e: unknown): ProviderErrorKind {
  const x = (e ?? {}) as AwsLikeError;
  const code = awsErrorCode(e);
  const msg = x.message ?? '';
  if (CAPACITY.has(code)) return 'capacity';
  // An AZ this account cannot use (names differ per account): the next zone may work.
  if (/invalid availability zone|not supported in your requested availability zone/i.test(msg)) return 'capacity';
  if (QUOTA.has(code) || /LimitExceeded$/.test(code) && code !== 'RequestLimitExceeded') return 'quota';
  if (AUTH.has(code) || /could not load credentials|credential/i.test(msg) && !x.$metadata?.httpStatusCode) return 'auth';
  if (TRANSIENT.has(code) || /socket hang up|timed? ?out/i.test(msg)) return 'transient';
  const status = x.$metadata?.httpStatusCode;
  if (status !== undefined && (status >= 500 || status === 429)) return 'transient';
  if (/^Invalid|^Missing|NotFound$|Malformed|IdempotentParameterMismatch|Region is missing/i.test(code + ' ' + msg)) return 'config';
  // A 4xx we do not know: retrying the same request will not help, so do not spin on it.
  if (status !== undefined) return 'config';
  return 'transient';
}

function hintFor(kind: ProviderErrorKind, code: string, action?: string): string | undefined {
  if (kind === 'auth') {
    if (code === 'UnauthorizedOperation' || code === 'AccessDenied') return `the AWS identity in use lacks permission${action ? ` for ${action.includes(':') ? action : `ec2:${action}`}` : ''}; ask for it or use another profile`;
    if (code === 'OptInRequired') return 'enable this region for the account (AWS console → Account → Regions) or pick another region';
    if (code === 'ExpiredToken' || code === 'RequestExpired') return 'the session expired: run "aws sso login" (or refresh the credentials) and retry';
    return LOGIN_HINT;
  }
  if (kind === 'quota') return 'request a higher EC2 quota (Service Quotas → EC2) or use another region, smaller instances or on-demand instead of spot';
  if (code === 'UnsupportedOperation') return 'spot instances (and some instance types) cannot be stopped: use down instead of stop';
  if (kind === 'config' && /AMI|ImageId/i.test(code)) return 'check image_id: it must exist in the region launched in';
  if (kind === 'config' && /Region is missing/i.test(code)) return 'set AWS_REGION or a region in ~/.aws/config, or name a region in the task (infra: aws/us-east-1)';
  return undefined;
}

/** The ProviderError for an SDK error; messages carry the AWS code but never credentials. */
export function toProviderError(e: unknown, action?: string): ProviderError {
  if (isProviderError(e)) return e;
  const code = awsErrorCode(e);
  const kind = classifyAwsError(e);
  const msg = ((e as AwsLikeError)?.message ?? String(e)).split('\n')[0];
  const text = `${action ? `${action}: ` : ''}${code === msg || msg.startsWith(code) ? msg : `${code}: ${msg}`}`;
  return new ProviderError(kind, text, hintFor(kind, /Region is missing/.test(msg) ? 'Region is missing' : code, action));
}

/** Runs one EC2 call and rethrows its failure as a typed ProviderError. */
export async function ec2Call<T>(action: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toProviderError(e, action);
  }
}
