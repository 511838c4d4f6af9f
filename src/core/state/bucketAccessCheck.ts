import { bucketNameProblem } from '../task/bucketNames';
import type { StoreKind } from '../storage/types';
import { printable } from './clusterName';

// The buckets a provider row records with its placement (provision/handle.ts refOf): a down
// hands them to the cloud's identity clean-up (GCP unbinds the cluster's account from each),
// so a row from an untrusted workspace may name only what a task could have named.

const STORES: readonly string[] = ['s3', 'gcs', 'azure', 'r2'] satisfies StoreKind[];
/** More mounts than any task has; a row with more is not one Skydeck wrote. */
const MAX_BUCKETS = 1000;
/** S3 and GCS object names are at most 1024 bytes; a prefix is part of one. */
const MAX_PREFIX = 1024;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why the recorded bucketAccess is not what Skydeck writes, or undefined. */
export function bucketAccessProblem(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length > MAX_BUCKETS) return `placement.bucketAccess is not a list of at most ${MAX_BUCKETS} buckets`;
  for (const a of v) {
    const p = entryProblem(a);
    if (p) return `placement.bucketAccess: ${p}`;
  }
  return undefined;
}

function entryProblem(a: unknown): string | undefined {
  if (!isObj(a)) return 'an entry is not an object';
  if (typeof a.store !== 'string' || !STORES.includes(a.store)) return `store ${printable(a.store)} is not a bucket store`;
  const store = a.store as StoreKind;
  if (typeof a.bucket !== 'string' || bucketNameProblem(store, a.bucket)) return `bucket ${printable(a.bucket)} is not a valid ${store} bucket name`;
  // eslint-disable-next-line no-control-regex
  if (a.prefix !== undefined && !(typeof a.prefix === 'string' && a.prefix.length <= MAX_PREFIX && !/[\u0000-\u001f\u007f]/.test(a.prefix))) {
    return `prefix ${printable(a.prefix)} is not a plain path`;
  }
  // Loose on purpose: the account may come from AZURE_STORAGE_ACCOUNT unchecked, and a row refused
  // for it could not be downed; it only ever names a storage account to look up by name.
  if (a.account !== undefined && !(typeof a.account === 'string' && /^[A-Za-z0-9._-]{1,256}$/.test(a.account))) return `account ${printable(a.account)} is not an Azure storage account name`;
  return undefined;
}
