// Helpers shared by the bucket operations: which BucketStore to ask, where a new bucket goes,
// and which local files a `name:` mount uploads under which keys.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bucketStoreFor, DEFAULT_FACTORIES, type BucketLocation, type BucketStore } from '../storage/buckets';
import type { NamedBucketMount, StoreKind } from '../storage/types';
import type { Task } from '../task';
import type { BucketRecord } from '../state';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { localPath } from './syncFiles';

export function bucketStoreOf(ctx: OpsContext, store: StoreKind, location: BucketLocation): BucketStore {
  return bucketStoreFor(store, location, {}, { ...DEFAULT_FACTORIES, ...ctx.bucketStores });
}

export function rowLocation(row: BucketRecord): BucketLocation {
  return JSON.parse(row.location) as BucketLocation;
}

/**
 * Where a new bucket of `store` goes: S3 in the task's AWS region (else the SDK's default
 * region); R2 in the Cloudflare account of CLOUDFLARE_ACCOUNT_ID, else of ~/.cloudflare/accountid; GCS in the task's GCP region (else the multi-region US);
 * Azure in the storage account of AZURE_STORAGE_ACCOUNT (containers live in an account).
 */
export function newBucketLocation(store: StoreKind, task?: Task): BucketLocation {
  const cloud = task?.resources.cloud?.toLowerCase();
  const region = task?.resources.region;
  if (store === 'r2') return process.env.CLOUDFLARE_ACCOUNT_ID ? { account: process.env.CLOUDFLARE_ACCOUNT_ID } : {}; // else ~/.cloudflare/accountid (buckets/index.ts)
  if (store === 's3') return cloud === 'aws' && region ? { region } : {};
  if (store === 'azure') return process.env.AZURE_STORAGE_ACCOUNT ? { account: process.env.AZURE_STORAGE_ACCOUNT } : {};
  return cloud === 'gcp' && region ? { region } : {};
}

/** Where a store's listing is done (S3 lists every region at once). */
export function sweepLocation(store: StoreKind): BucketLocation {
  return newBucketLocation(store);
}

/**
 * The files a `name:` mount uploads, local path → object key: a `source:` directory's tree
 * under the bucket root; each `source: [..]` entry under its base name (SkyPilot's layout).
 * Symbolic links to files are followed; links to directories, loops and dangling links are skipped.
 */
export function uploadFilesOf(dst: string, m: NamedBucketMount, taskDir: string): Map<string, string> {
  const out = new Map<string, string>();
  const sources = m.localFiles ?? (m.localSource === undefined ? [] : [m.localSource]);
  for (const source of sources) {
    const src = localPath(source, taskDir);
    const st = fs.statSync(src, { throwIfNoEntry: false });
    if (!st) throw new OpsError('usage', `file_mounts ${dst}: source ${source} (${src}) does not exist; it is uploaded into bucket ${m.name}`);
    const prefix = m.localFiles ? path.basename(src) : '';
    if (st.isDirectory()) walk(src, prefix, out);
    else out.set(src, prefix || path.basename(src));
  }
  return out;
}

function walk(dir: string, prefix: string, out: Map<string, string>): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    const key = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) walk(full, key, out);
    else if (e.isFile() || (e.isSymbolicLink() && linkedFile(full))) out.set(full, key);
  }
}

/** A link that leads to a file; a dangling link or a loop (ELOOP) is skipped like a directory link. */
function linkedFile(p: string): boolean {
  try {
    return fs.statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}
