// Object-level S3 work for the BucketStore: upload changed files, empty a bucket before delete.
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import * as fs from 'node:fs';
import {
  DeleteObjectsCommand, ListObjectsV2Command, ListObjectVersionsCommand, PutObjectCommand, type S3Client,
  type ObjectIdentifier,
} from '@aws-sdk/client-s3';
import { StorageError } from '../errors';
import type { UploadProgress, UploadResult } from './types';
import { s3Error } from './s3Errors';

/** PutObject's limit; @aws-sdk/lib-storage (multipart) is not a dependency, so bigger files are refused. */
const SINGLE_PUT_MAX = 5 * 1024 ** 3;

interface Remote { size: number; etag: string }

async function listAll(client: S3Client, label: string, bucket: string, signal?: AbortSignal): Promise<Map<string, Remote>> {
  const out = new Map<string, Remote>();
  let token: string | undefined;
  do {
    let page;
    try {
      page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ...(token ? { ContinuationToken: token } : {}) }), { abortSignal: signal });
    } catch (e) {
      throw s3Error(label, 'ListObjectsV2', e);
    }
    for (const o of page.Contents ?? []) if (o.Key) out.set(o.Key, { size: o.Size ?? -1, etag: (o.ETag ?? '').replace(/"/g, '') });
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out;
}

function md5Of(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('md5');
    fs.createReadStream(file).on('error', reject).on('data', (d) => h.update(d)).on('end', () => resolve(h.digest('hex')));
  });
}

/**
 * Sends the files whose object is missing or differs. A single-part object's ETag is its MD5,
 * so equal size and ETag means equal content; a multipart ETag ("…-N") is never equal, and the
 * file is sent again (correct, only slower).
 */
export async function uploadChanged(
  client: S3Client, label: string, bucket: string, files: Map<string, string>,
  o: { concurrency: number; onProgress?: (p: UploadProgress) => void; signal?: AbortSignal },
): Promise<UploadResult> {
  // Each request in flight listens on the signal: several at once are expected, not a leak.
  if (o.signal) setMaxListeners(Math.max(10, o.concurrency * 4), o.signal);
  const remote = await listAll(client, label, bucket, o.signal);
  const todo: { local: string; key: string; size: number; md5: string }[] = [];
  let unchanged = 0;
  for (const [local, key] of files) {
    const size = fs.statSync(local).size;
    if (size > SINGLE_PUT_MAX) {
      throw new StorageError('config', `${label}/${key}`, `${local} is ${size} bytes, over the 5 GiB of a single upload`, 'Upload it with `aws s3 cp` (multipart), then launch again: the same object is not sent twice.');
    }
    const r = remote.get(key);
    const md5 = await md5Of(local);
    if (r && r.size === size && r.etag === md5) unchanged++;
    else todo.push({ local, key, size, md5 });
  }
  const p: UploadProgress = { files: 0, bytes: 0, totalFiles: todo.length, totalBytes: todo.reduce((a, t) => a + t.size, 0) };
  o.onProgress?.({ ...p });
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      if (o.signal?.aborted) throw new StorageError('failed', label, 'the upload was cancelled', 'Launch again to send the rest (files already sent are skipped).');
      const t = todo[next++];
      try {
        await client.send(new PutObjectCommand({
          Bucket: bucket, Key: t.key, Body: fs.createReadStream(t.local), ContentLength: t.size,
          ContentMD5: Buffer.from(t.md5, 'hex').toString('base64'),
        }), { abortSignal: o.signal });
      } catch (e) {
        throw s3Error(`${label}/${t.key}`, 'PutObject', e);
      }
      p.files++;
      p.bytes += t.size;
      o.onProgress?.({ ...p });
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, todo.length) }, worker));
  return { uploaded: todo.length, unchanged, bytes: p.bytes };
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
