// Object-level S3 work for the BucketStore: upload changed files, empty a bucket before delete.
import { setMaxListeners } from 'node:events';
import * as fs from 'node:fs';
import {
  DeleteObjectsCommand, ListObjectsV2Command, ListObjectVersionsCommand, PutObjectCommand, type S3Client,
  type ObjectIdentifier,
} from '@aws-sdk/client-s3';
import { StorageError } from '../errors';
import type { UploadProgress, UploadResult } from './types';
import { s3Error } from './s3Errors';
import { eachLimited, uploadChanged as sendChanged, type Held } from './localFiles';
import { DEFAULT_MULTIPART, putMultipart, recordedMd5, tooLarge, type MultipartOptions } from './s3Multipart';

/**
 * What the bucket holds; a single-part ETag is the object's MD5 (hex), given here as base64. A
 * multipart ETag ("<hex>-<parts>") is not: those keys are returned apart, for a HeadObject.
 */
async function listAll(client: S3Client, label: string, bucket: string, signal?: AbortSignal): Promise<{ held: Map<string, Held>; multipart: Set<string> }> {
  const out = new Map<string, Held>();
  const multipart = new Set<string>();
  let token: string | undefined;
  do {
    let page;
    try {
      page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ...(token ? { ContinuationToken: token } : {}) }), { abortSignal: signal });
    } catch (e) {
      throw s3Error(label, 'ListObjectsV2', e);
    }
    for (const o of page.Contents ?? []) {
      const etag = (o.ETag ?? '').replace(/"/g, '');
      if (!o.Key) continue;
      out.set(o.Key, { size: o.Size ?? -1, md5: /^[0-9a-f]{32}$/.test(etag) ? Buffer.from(etag, 'hex').toString('base64') : undefined });
      if (/^[0-9a-f]{32}-\d+$/.test(etag)) multipart.add(o.Key);
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return { held: out, multipart };
}

/**
 * Sends the files whose object is missing or differs (same size and MD5 = same content). Files
 * over the multipart threshold go in parts (s3Multipart.ts), the rest with one PutObject.
 */
export async function uploadChanged(
  client: S3Client, label: string, bucket: string, files: Map<string, string>,
  o: { concurrency: number; onProgress?: (p: UploadProgress) => void; signal?: AbortSignal; multipart?: Partial<MultipartOptions> },
): Promise<UploadResult> {
  const mp = { ...DEFAULT_MULTIPART, ...o.multipart };
  const sizes = new Map<string, number>();
  for (const [local, key] of files) {
    const size = fs.statSync(local).size;
    const big = tooLarge(`${label}/${key}`, { path: local, size });
    if (big) throw big;
    sizes.set(key, size);
  }
  // Each request in flight listens on the signal: several at once are expected, not a leak.
  if (o.signal) setMaxListeners(Math.max(10, o.concurrency * 4), o.signal);
  const { held, multipart } = await listAll(client, label, bucket, o.signal);
  // A multipart object of the local file's size: its MD5 is in its metadata, if Skydeck sent it.
  await eachLimited([...multipart].filter((k) => held.get(k)?.size === sizes.get(k)), o.concurrency, async (k) => {
    held.set(k, { size: held.get(k)!.size, md5: await recordedMd5(client, label, bucket, k, o.signal) });
  });
  return sendChanged({
    label, files, held, limit: o.concurrency, onProgress: o.onProgress, signal: o.signal,
    send: async (t) => {
      if (t.size > mp.threshold) return putMultipart(client, label, bucket, t, mp, o.signal);
      try {
        await client.send(new PutObjectCommand({
          Bucket: bucket, Key: t.key, Body: fs.createReadStream(t.path), ContentLength: t.size, ContentMD5: t.md5.toString('base64'),
        }), { abortSignal: o.signal });
      } catch (e) {
        throw s3Error(`${label}/${t.key}`, 'PutObject', e);
      }
    },
  });
}

/**
 * Deletes every object (every version and delete marker where the store has versions), page by
 * page, until a listing comes back empty. R2 has no versions (ListObjectVersions is not implemented).
 */
export async function emptyBucket(client: S3Client, label: string, bucket: string, versions: boolean, signal?: AbortSignal): Promise<void> {
  for (;;) {
    let ids: ObjectIdentifier[];
    try {
      if (versions) {
        const r = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, MaxKeys: 1000 }), { abortSignal: signal });
        ids = [...(r.Versions ?? []), ...(r.DeleteMarkers ?? [])].filter((v) => v.Key).map((v) => ({ Key: v.Key!, VersionId: v.VersionId }));
      } else {
        const r = await client.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1000 }), { abortSignal: signal });
        ids = (r.Contents ?? []).filter((c) => c.Key).map((c) => ({ Key: c.Key! }));
      }
    } catch (e) {
      const err = s3Error(label, versions ? 'ListObjectVersions' : 'ListObjectsV2', e);
      if (err.kind === 'bucket-missing') return;
      throw err;
    }
    if (!ids.length) return;
    for (let i = 0; i < ids.length; i += 1000) {
      let r;
      try {
        r = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: ids.slice(i, i + 1000), Quiet: true } }), { abortSignal: signal });
      } catch (e) {
        throw s3Error(label, 'DeleteObjects', e);
      }
      const failed = r.Errors ?? [];
      if (failed.length) {
        throw new StorageError('failed', label, `${failed.length} object(s) could not be deleted (first: ${failed[0].Key}: ${failed[0].Code} ${failed[0].Message ?? ''})`,
          'Check the identity may delete objects (and object versions) in the bucket, then retry.');
      }
    }
  }
}
