// Bucket URLs in file_mounts, as SkyPilot writes them: s3://b/p, gs://b/p, r2://b/p and
// https://<account>.blob.core.windows.net/<container>/p. Anything else with a scheme is either
// a store SkyPilot knows and Skydeck cannot use yet (cos://, oci://, ...) or a mistake.

import type { StoreKind } from '../storage/types';
import { AZURE_ACCOUNT_RULE, azureAccountProblem, bucketNameError } from './bucketNames';
import { nearest } from './suggest';

/** URL scheme -> store, for the stores Skydeck mounts. */
export const URL_SCHEMES: Record<string, StoreKind> = { s3: 's3', gs: 'gcs', r2: 'r2', https: 'azure' };
/** Written back in messages: the scheme each store's URLs use. */
export const STORE_SCHEME: Record<StoreKind, string> = { s3: 's3://', gcs: 'gs://', r2: 'r2://', azure: 'https://' };
/** Schemes SkyPilot accepts for stores Skydeck does not support (IBM COS, OCI, Nebius, CoreWeave, VAST). */
export const OTHER_SKYPILOT_SCHEMES = ['cos', 'oci', 'nebius', 'cw', 'vastdata'] as const;

const AZURE_HOST = /^([^./]*)\.blob\.core\.windows\.net$/;
export const AZURE_URL_FORM = 'https://<account>.blob.core.windows.net/<container>[/path]';

/** The scheme of `s` (lower case) when it starts with `scheme://`; local paths have none. */
export function urlScheme(s: string): string | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(s);
  return m ? m[1].toLowerCase() : undefined;
}

export interface ParsedBucketUrl {
  store: StoreKind;
  bucket: string;
  prefix: string;
  account?: string;
}

export type BucketUrlResult =
  | { ok: true; url: ParsedBucketUrl }
  /** A store SkyPilot has and Skydeck does not. */
  | { ok: false; other: string }
  | { ok: false; other?: undefined; message: string; hint: string };

const bad = (message: string, hint: string): BucketUrlResult => ({ ok: false, message, hint });

/** The hint for an unknown scheme: the closest known one, or the list. */
function schemeHint(scheme: string, url: string): string {
  const known = Object.keys(URL_SCHEMES);
  const guess = nearest(scheme, [...known, 'gcs']);
  const rest = url.slice(url.indexOf('://'));
  if (guess) return `did you mean "${guess === 'gcs' ? 'gs' : guess}${rest}"?`;
  return `bucket URLs start with s3://, gs://, r2:// or ${AZURE_URL_FORM}; a local path has no scheme`;
}

/** Splits and checks a bucket URL; `url` must have a scheme (see urlScheme). */
export function parseBucketUrl(url: string): BucketUrlResult {
  const scheme = urlScheme(url) ?? '';
  if ((OTHER_SKYPILOT_SCHEMES as readonly string[]).includes(scheme)) return { ok: false, other: `${scheme}://` };
  const store = URL_SCHEMES[scheme];
  if (!store || !url.startsWith(`${scheme}://`)) {
    return bad(`unknown bucket URL scheme "${url.slice(0, url.indexOf('://') + 3)}"`, schemeHint(scheme, url));
  }
  // eslint-disable-next-line no-control-regex
  if (/[\0-\x1f\x7f-\x9f]/.test(url)) {
    return bad('a bucket URL may not contain control characters', 'write the bucket and path in printable characters');
  }
  if (/[?#\s]/.test(url)) {
    return bad('a bucket URL may not contain "?", "#" or white space', 'write only the bucket and path; credentials such as SAS tokens do not belong in a task file');
  }
  const parts = url.slice(scheme.length + 3).split('/');
  let account: string | undefined;
  if (store === 'azure') {
    const host = AZURE_HOST.exec(parts.shift() ?? '');
    if (!host) return bad('an https:// source must be an Azure Blob container URL', `write ${AZURE_URL_FORM}`);
    account = host[1];
    const problem = azureAccountProblem(account);
    if (problem) return bad(`the Azure storage account "${account}" ${problem}`, AZURE_ACCOUNT_RULE);
  }
  const bucket = parts.shift() ?? '';
  const what = store === 'azure' ? 'container' : 'bucket';
  if (bucket === '') return bad(`the URL names no ${what}`, store === 'azure' ? `write ${AZURE_URL_FORM}` : `write ${STORE_SCHEME[store]}<bucket>[/path]`);
  const nameError = bucketNameError(store, bucket);
  if (nameError) return bad(nameError.message, nameError.hint);
  const segments = parts.filter((p) => p !== '');
  if (segments.some((p) => p === '.' || p === '..')) {
    return bad('the path inside the bucket has a "." or ".." segment', 'write the path from the bucket root, without "." or ".."');
  }
  return { ok: true, url: { store, bucket, prefix: segments.join('/'), ...(account ? { account } : {}) } };
}
