// The object Skydeck writes at the root of an R2 bucket it created (R2 has no bucket tags; see
// buckets/s3.ts). It is Skydeck's, not the job's: rclone hides it from COPY and MOUNT.
export const BUCKET_MARKER = '.skydeck-bucket.json';

/** rclone filter flags hiding the marker when `remotePath` ("skydeck:bkt[/prefix]") is a bucket's root. */
export function hideMarkerFlags(remotePath: string): string[] {
  const inBucket = remotePath.slice(remotePath.indexOf(':') + 1);
  return inBucket.includes('/') ? [] : ['--exclude', `/${BUCKET_MARKER}`];
}
