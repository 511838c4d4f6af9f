// S3 (and R2) SDK errors as StorageErrors: each names the bucket and what to fix.
import { StorageError } from '../errors';

interface SdkError {
  name?: string;
  Code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

export function s3Code(e: unknown): string {
  const x = (e ?? {}) as SdkError;
  return x.Code ?? x.name ?? 'Error';
}

export function s3Status(e: unknown): number | undefined {
  return ((e ?? {}) as SdkError).$metadata?.httpStatusCode;
}

const LOGIN = 'Set AWS_PROFILE (or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY), run "aws configure", or "aws sso login"';

/** The StorageError for a failed call on `bucket` (label e.g. "s3://name"); `what` names the call. */
export function s3Error(label: string, what: string, e: unknown): StorageError {
  if (e instanceof StorageError) return e;
  const code = s3Code(e);
  const status = s3Status(e);
  const msg = ((e ?? {}) as SdkError).message ?? String(e);
  const said = `${what} failed: ${code}${msg && msg !== code ? ` (${msg})` : ''}`;
  if (code === 'NoSuchBucket' || (status === 404 && /Bucket/.test(what))) {
    return new StorageError('bucket-missing', label, `${what}: the bucket does not exist`, 'Check the name and the account; Skydeck creates buckets only for `name:` mounts.');
  }
  if (code === 'BucketAlreadyExists' || code === 'BucketAlreadyOwnedByYou') {
    return new StorageError('bucket-exists', label, `a bucket of that name already exists (${code})`,
      'Bucket names are global: pick another name, or name the existing bucket by URL (s3://…) to use it as is.');
  }
  if (/CredentialsProviderError|could not load credentials/i.test(`${code} ${msg}`)) {
    return new StorageError('no-credentials', label, `${what}: no credentials were found`, `${LOGIN}.`);
  }
  if (/AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch|ExpiredToken|InvalidToken|AllAccessDisabled/.test(code) || status === 403) {
    return new StorageError('denied', label, said, `Give the identity in use permission for this call on the bucket, or use another profile. ${LOGIN}.`);
  }
  if (/ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|ECONNRESET|TimeoutError|NetworkingError/.test(`${code} ${msg}`)) {
    return new StorageError('unreachable', label, said, 'Check the network access to the store and the endpoint setting.');
  }
  if (/Region is missing/i.test(msg)) {
    return new StorageError('config', label, `${what}: no AWS region is configured`, 'Set AWS_REGION, or add "region = …" to the profile in ~/.aws/config.');
  }
  if (code === 'EntityTooLarge') {
    return new StorageError('config', label, said, 'A single PutObject holds at most 5 GiB (Skydeck sends larger files in parts); a part holds at most 5 GiB and an object 5 TiB.');
  }
  return new StorageError('failed', label, said, 'Retry; if it persists, run the same call with the AWS CLI to see more.');
}
