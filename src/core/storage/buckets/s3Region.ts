// Which region an S3 bucket lives in, asked from this machine: rclone on the node must sign for
// that region (S3 refuses a signature for another: AuthorizationHeaderMalformed), and nodes
// in other regions than the bucket's are common.
import { GetBucketLocationCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { s3Code, s3Error, s3Status } from './s3Errors';

/**
 * HeadBucket's x-amz-bucket-region, which S3 sends with a 200, and with a 403 or 301 too (the
 * S3 API reference, HeadBucket: "BucketRegion"); else GetBucketLocation. Undefined when the
 * bucket does not exist; other failures are StorageErrors naming the bucket.
 */
export async function bucketRegion(client: S3Client, label: string, name: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    const r = await client.send(new HeadBucketCommand({ Bucket: name }), { abortSignal: signal });
    if (r.BucketRegion) return r.BucketRegion;
  } catch (e) {
    const header = (e as { $response?: { headers?: Record<string, string> } }).$response?.headers?.['x-amz-bucket-region'];
    if (header) return header;
    if (s3Status(e) === 404 || s3Code(e) === 'NoSuchBucket' || s3Code(e) === 'NotFound') return undefined;
    throw s3Error(label, 'HeadBucket', e);
  }
  return locationRegion(client, name, signal);
}

/** GetBucketLocation's answer as a region name, undefined when it cannot be read. */
export async function locationRegion(client: S3Client, name: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    const r = await client.send(new GetBucketLocationCommand({ Bucket: name }), { abortSignal: signal });
    // No constraint means us-east-1; "EU" is the old name of eu-west-1.
    const c = r.LocationConstraint as string | undefined;
    return !c ? 'us-east-1' : c === 'EU' ? 'eu-west-1' : c;
  } catch {
    return undefined;
  }
}
