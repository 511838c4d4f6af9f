// S3 and R2 make a bucket in two calls (CreateBucket, then its tags), so a crash between them
// leaves a bucket without Skydeck's tag. Its intent row (CREATING, written before CreateBucket)
// may claim it afterwards, but only with evidence beyond the name: the bucket carries no tags at
// all, and the store says it was created in the minutes after the row was written (ListBuckets
// CreationDate). A bucket that existed before the row, or came long after it, is never claimed.
import { ListBucketsCommand, type S3Client } from '@aws-sdk/client-s3';
import { s3Error } from './s3Errors';

/** Clock difference tolerated between this machine and the store. */
export const CLOCK_SKEW_MS = 5 * 60_000;
/** From the intent row to CreateBucket: the call and its retries take seconds; this is ample. */
export const CREATE_WINDOW_MS = 10 * 60_000;

/** When the store says the bucket was created, or undefined if it does not list it. */
export async function creationTime(client: S3Client, label: string, name: string, signal?: AbortSignal): Promise<number | undefined> {
  let token: string | undefined;
  do {
    let page;
    try {
      page = await client.send(new ListBucketsCommand({ ...(token ? { ContinuationToken: token } : {}) }), { abortSignal: signal });
    } catch (e) {
      throw s3Error(label, 'ListBuckets', e);
    }
    const b = (page.Buckets ?? []).find((x) => x.Name === name);
    if (b) return b.CreationDate?.getTime();
    token = page.ContinuationToken;
  } while (token);
  return undefined;
}

/**
 * Why a tagless bucket is not the one an intent row written at `rowAt` created, or undefined
 * when the evidence says it is (`tags`: what the bucket carries now).
 */
export function notFromIntent(tags: Record<string, string>, created: number | undefined, rowAt: number): string | undefined {
  if (Object.keys(tags).length) return `it carries tags Skydeck did not write (${Object.keys(tags).slice(0, 5).join(', ')})`;
  if (created === undefined) return 'the store does not say when it was created';
  if (created < rowAt - CLOCK_SKEW_MS) return `it was created at ${new Date(created).toISOString()}, before Skydeck meant to create it (${new Date(rowAt).toISOString()})`;
  if (created > rowAt + CREATE_WINDOW_MS) return `it was created at ${new Date(created).toISOString()}, long after Skydeck's interrupted create (${new Date(rowAt).toISOString()})`;
  return undefined;
}
