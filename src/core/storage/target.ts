// What one node-side storage operation works on: a bucket (or Azure container) and a prefix in
// it, bound to a destination path on the node. Derived from the parser's BucketMount.
import type { BucketMount, MountMode, MountTuning, StoreKind } from './types';

export interface BucketTarget {
  store: StoreKind;
  bucket: string;
  /** Path inside the bucket, no leading or trailing '/'; '' for the whole bucket. */
  prefix: string;
  /** Azure only: the storage account that holds the container. */
  account?: string;
}

export interface NodeMount {
  /** Where the bucket appears on the node (the file_mounts key). */
  dst: string;
  target: BucketTarget;
  mode: MountMode;
  /** The task's preset/config tuning (MOUNT and MOUNT_CACHED). */
  tuning?: MountTuning;
}

/** The target of a parsed mount. A named Azure bucket needs the account Skydeck keeps it in. */
export function targetOf(m: BucketMount, azureAccount?: string): BucketTarget {
  if (m.kind === 'url') {
    if (m.store === 'azure') return { store: 'azure', bucket: m.container, prefix: m.prefix, account: m.account };
    return { store: m.store, bucket: m.bucket, prefix: m.prefix };
  }
  return { store: m.store, bucket: m.name, prefix: '', ...(m.store === 'azure' ? { account: azureAccount } : {}) };
}

const SCHEME: Record<StoreKind, string> = { s3: 's3', gcs: 'gs', r2: 'r2', azure: 'azure' };

/** The bucket as a user would write it, for messages: "s3://bkt/prefix". */
export function describeTarget(t: BucketTarget): string {
  const path = t.prefix ? `${t.bucket}/${t.prefix}` : t.bucket;
  if (t.store === 'azure' && t.account) return `https://${t.account}.blob.core.windows.net/${path}`;
  return `${SCHEME[t.store]}://${path}`;
}

/** "/data: s3://bkt" — how every storage message names the mount. */
export function mountLabel(dst: string, t: BucketTarget): string {
  return `${dst}: ${describeTarget(t)}`;
}
