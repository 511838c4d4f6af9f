import type { BucketListing } from '../../core/ops/storageListing';

/** What the Storage section shows under it; the provider draws one node class per kind. */
export type StorageEntry =
  | { kind: 'bucket'; bucket: BucketListing }
  /** The listing failed: the buckets are unknown, which is not the same as none. */
  | { kind: 'storage-error'; message: string };

/**
 * The buckets Skydeck created, for the Clusters view's Storage section (no `vscode`: unit-tested
 * in Node). Reloaded with the clusters. The section is hidden while there is nothing to show:
 * most tasks use no bucket, and an empty section in every window would be noise.
 */
export class StorageModel {
  private buckets: BucketListing[] = [];
  private error: string | undefined;

  constructor(private readonly changed: () => void = () => undefined) {}

  /** A successful listing replaces the last one and clears its error. */
  set(buckets: readonly BucketListing[]): void {
    this.buckets = [...buckets].sort((a, b) => a.name.localeCompare(b.name) || a.store.localeCompare(b.store));
    this.error = undefined;
  }

  /** A failed listing keeps the buckets last seen (they did not vanish) and shows why. */
  failed(message: string): void {
    this.error = message;
  }

  /** Drops a bucket once its deletion is confirmed; false if it was not listed. */
  remove(name: string, store: string): boolean {
    const before = this.buckets.length;
    this.buckets = this.buckets.filter((b) => !(b.name === name && b.store === store));
    if (this.buckets.length === before) return false;
    this.changed();
    return true;
  }

  get visible(): boolean {
    return this.buckets.length > 0 || this.error !== undefined;
  }

  /** "2 · 1 deleted at down" (+ "· listing failed"): the section's description. */
  get summary(): string {
    const parts = [`${this.buckets.length}`];
    const temporary = this.buckets.filter((b) => !b.persistent).length;
    if (temporary) parts.push(`${temporary} deleted at down`);
    if (this.error !== undefined) parts.push('listing failed');
    return parts.join(' · ');
  }

  all(): readonly BucketListing[] {
    return this.buckets;
  }

  entries(): StorageEntry[] {
    const out: StorageEntry[] = this.buckets.map((bucket) => ({ kind: 'bucket' as const, bucket }));
    if (this.error !== undefined) out.push({ kind: 'storage-error', message: this.error });
    return out;
  }
}

/** "s3 · READY · cluster train · deleted at down": a bucket node's description. */
export function bucketDescription(b: BucketListing): string {
  return [
    b.store,
    b.status,
    b.ownerCluster ? `cluster ${b.ownerCluster}` : '',
    b.persistent ? 'kept after down' : 'deleted at down',
    b.problem ?? '',
  ].filter(Boolean).join(' · ');
}

/** Plain-text tooltip: what the bucket is and what happens to it. */
export function bucketTooltip(b: BucketListing): string {
  return [
    `${b.store} bucket ${b.name} (${b.status}), created by Skydeck`,
    b.ownerCluster ? `created for cluster ${b.ownerCluster}` : 'no cluster owns it now',
    b.persistent ? 'persistent: kept when its cluster is torn down' : 'persistent: false: deleted when its cluster is torn down',
    b.problem ? `problem: ${b.problem}` : '',
  ].filter(Boolean).join('\n');
}
