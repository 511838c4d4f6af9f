// Bucket (and Azure container/account) naming rules per store, checked at parse so a bad name
// is reported on its line instead of by the cloud at launch. Sources of the rules:
// S3 - docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html (general purpose);
// GCS - cloud.google.com/storage/docs/buckets#naming; R2 - developers.cloudflare.com/r2/buckets/
// (no dots, unlike S3); Azure - learn.microsoft.com, "Naming and Referencing Containers" and
// the Microsoft.Storage resource-name rules for accounts.

import type { StoreKind } from '../storage/types';

export const STORE_LABEL: Record<StoreKind, string> = { s3: 'S3', gcs: 'GCS', azure: 'Azure', r2: 'R2' };

const IP_LIKE = /^\d{1,3}(\.\d{1,3}){3}$/;
const S3_RESERVED_PREFIXES = ['xn--', 'sthree-', 'amzn-s3-demo-'];
const S3_RESERVED_SUFFIXES = ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3'];

/** The rule in one line, used as the fix hint. */
export const NAME_RULE: Record<StoreKind, string> = {
  s3: 'S3 bucket names are 3-63 characters of a-z, 0-9, "." and "-", starting and ending with a letter or digit',
  r2: 'R2 bucket names are 3-63 characters of a-z, 0-9 and "-", starting and ending with a letter or digit',
  gcs: 'GCS bucket names are 3-63 characters of a-z, 0-9, "-", "_" and "." (up to 222 with dots), starting and ending with a letter or digit',
  azure: 'Azure container names are 3-63 characters of a-z, 0-9 and "-", starting and ending with a letter or digit, without "--"',
};

function charsProblem(name: string, allowed: RegExp, words: string): string | undefined {
  if (!allowed.test(name)) return `may hold only ${words}`;
  if (!/^[a-z0-9]/.test(name) || !/[a-z0-9]$/.test(name)) return 'must start and end with a lowercase letter or a digit';
  return undefined;
}

function s3Problem(name: string, store: 's3' | 'r2'): string | undefined {
  if (name.length < 3 || name.length > 63) return `is ${name.length} characters long; it must be 3 to 63`;
  const chars = store === 's3'
    ? charsProblem(name, /^[a-z0-9.-]+$/, 'lowercase letters, digits, dots and hyphens')
    : charsProblem(name, /^[a-z0-9-]+$/, 'lowercase letters, digits and hyphens');
  if (chars) return chars;
  if (name.includes('..')) return 'must not contain two dots in a row';
  if (IP_LIKE.test(name)) return 'must not look like an IP address';
  const prefix = S3_RESERVED_PREFIXES.find((p) => name.startsWith(p));
  if (prefix) return `must not start with the reserved prefix "${prefix}"`;
  const suffix = S3_RESERVED_SUFFIXES.find((s) => name.endsWith(s));
  if (suffix) return `must not end with the reserved suffix "${suffix}"`;
  return undefined;
}

function gcsProblem(name: string): string | undefined {
  const max = name.includes('.') ? 222 : 63;
  if (name.length < 3 || name.length > max) {
    return `is ${name.length} characters long; it must be 3 to 63 (up to 222 when it contains dots)`;
  }
  const chars = charsProblem(name, /^[a-z0-9._-]+$/, 'lowercase letters, digits, hyphens, underscores and dots');
  if (chars) return chars;
  if (name.split('.').some((part) => part.length > 63)) return 'has a dot-separated part longer than 63 characters';
  if (name.includes('..') || name.includes('.-') || name.includes('-.')) return 'must not contain "..", ".-" or "-."';
  if (IP_LIKE.test(name)) return 'must not look like an IP address';
  if (name.startsWith('goog') || /g[o0][o0]gle/.test(name)) return 'must not start with "goog" or contain "google" (or look-alikes)';
  return undefined;
}

function azureContainerProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return `is ${name.length} characters long; it must be 3 to 63`;
  const chars = charsProblem(name, /^[a-z0-9-]+$/, 'lowercase letters, digits and hyphens');
  if (chars) return chars;
  if (name.includes('--')) return 'must not contain two hyphens in a row';
  return undefined;
}

/** Why `name` cannot be a bucket (Azure: container) of `store`, or undefined when it can. */
export function bucketNameProblem(store: StoreKind, name: string): string | undefined {
  if (store === 'gcs') return gcsProblem(name);
  if (store === 'azure') return azureContainerProblem(name);
  return s3Problem(name, store);
}

export const AZURE_ACCOUNT_RULE = 'Azure storage account names are 3-24 characters of a-z and 0-9';

/** Why `name` cannot be an Azure storage account name, or undefined when it can. */
export function azureAccountProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 24) return `is ${name.length} characters long; it must be 3 to 24`;
  if (!/^[a-z0-9]+$/.test(name)) return 'may hold only lowercase letters and digits';
  return undefined;
}

/** Why `name` cannot be a bucket of `store`, said as a parse error with the fix, or undefined when it can. */
export function bucketNameError(store: StoreKind, name: string): { message: string; hint: string } | undefined {
  const problem = bucketNameProblem(store, name);
  if (!problem) return undefined;
  const fix = nearbyBucketName(store, name);
  return {
    message: `${JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)} is not a valid ${STORE_LABEL[store]} ${store === 'azure' ? 'container' : 'bucket'} name: it ${problem}`,
    hint: fix ? `did you mean "${fix}"? ${NAME_RULE[store]}` : NAME_RULE[store],
  };
}

/** A valid name close to `name` (case folded, other characters as "-"), to offer as the fix. */
export function nearbyBucketName(store: StoreKind, name: string): string | undefined {
  const allowed = store === 'gcs' ? /[^a-z0-9._-]/g : store === 's3' ? /[^a-z0-9.-]/g : /[^a-z0-9-]/g;
  const guess = name.toLowerCase().replace(allowed, '-').replace(/-{2,}/g, '-').replace(/\.{2,}/g, '.')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '').slice(0, 63).replace(/[^a-z0-9]+$/, '');
  return guess !== name && bucketNameProblem(store, guess) === undefined ? guess : undefined;
}
