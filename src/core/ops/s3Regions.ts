// The region of each S3 bucket a plan mounts, looked up on this machine before anything runs
// on a node: rclone there signs for the region it is given, and a bucket in another region
// than its default is refused (AuthorizationHeaderMalformed) rather than redirected.
import { bucketStoreFor, DEFAULT_FACTORIES } from '../storage/buckets';
import type { OpsContext } from './context';
import type { PlannedMount } from './plannedMount';

const LOOKUP_MS = 15_000;

/**
 * Sets `access.region` of every S3 mount in `plan` from S3's own answer. A bucket that does not
 * exist yet (a `name:` mount created later) is marked `regionPending`, to be asked again once it
 * does; a lookup that fails (no credentials here, denied without a region header) leaves the
 * region unset, as before, and says so in the log.
 */
export async function lookUpS3Regions(ctx: OpsContext, plan: PlannedMount[], signal?: AbortSignal): Promise<void> {
  const s3 = plan.filter((p) => p.mount.target.store === 's3');
  if (!s3.length) return;
  const store = bucketStoreFor('s3', {}, { endpoint: ctx.storageAccess?.endpoint }, { ...DEFAULT_FACTORIES, ...ctx.bucketStores });
  if (!store.regionOf) return;
  const asked = new Map<string, Promise<string | undefined | Error>>();
  const regionOf = (bucket: string) => {
    if (!asked.has(bucket)) {
      const timeout = AbortSignal.timeout(LOOKUP_MS);
      const s = signal ? AbortSignal.any([signal, timeout]) : timeout;
      asked.set(bucket, store.regionOf!(bucket, s).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e)))));
    }
    return asked.get(bucket)!;
  };
  for (const p of s3) {
    const r = await regionOf(p.mount.target.bucket);
    if (r instanceof Error) {
      ctx.log(`file_mounts ${p.mount.dst}: the region of s3://${p.mount.target.bucket} could not be looked up (${r.message}); rclone on the node uses its default region`);
      continue;
    }
    p.regionPending = r === undefined ? true : undefined;
    if (r) p.access = { ...p.access, region: r };
  }
}
