// Large files into S3 (and R2): multipart upload, one part at a time, each part streamed from
// disk (memory per file in flight stays at the stream's buffer, whatever the part size). A
// multipart object's ETag is no MD5, so the file's MD5 travels as object metadata, and the
// changed-files check reads it back with HeadObject (only for multipart objects of equal size).
// S3's rules (Amazon S3 User Guide, "Multipart upload limits"): parts 5 MiB-5 GiB except the
// last, at most 10,000 parts, objects at most 5 TiB.
import * as fs from 'node:fs';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, HeadObjectCommand, UploadPartCommand,
  type CompletedPart, type S3Client,
} from '@aws-sdk/client-s3';
import { StorageError } from '../errors';
import { s3Error } from './s3Errors';
import type { LocalFile } from './localFiles';

export const MIN_PART = 5 * 1024 ** 2;
const MAX_PART = 5 * 1024 ** 3;
const MAX_PARTS = 10_000;
export const MAX_OBJECT = 5 * 1024 ** 4;
/** Metadata key (x-amz-meta-skydeck-md5): the whole file's MD5, base64. */
export const MD5_META = 'skydeck-md5';

export interface MultipartOptions {
  /** Files larger than this go multipart (default 64 MiB; tests lower it). */
  threshold: number;
  /** Preferred part size (default 16 MiB), raised when the file would need over 10,000 parts. */
  partSize: number;
}

export const DEFAULT_MULTIPART: MultipartOptions = { threshold: 64 * 1024 ** 2, partSize: 16 * 1024 ** 2 };

/** The part size for a file of `size` bytes: at least the minimum, few enough parts. */
export function partSizeFor(size: number, preferred: number): number {
  const need = Math.ceil(size / MAX_PARTS);
  return Math.min(MAX_PART, Math.max(MIN_PART, preferred, need));
}

/** A file S3 cannot hold as one object: refused before anything is sent. */
export function tooLarge(label: string, f: { path: string; size: number }): StorageError | undefined {
  if (f.size <= MAX_OBJECT) return undefined;
  return new StorageError('config', label, `${f.path} is ${f.size} bytes, over the 5 TiB an S3 object can hold`, 'Split the file, or keep it out of the uploaded directory.');
}

/** Uploads one file as a multipart object; on any failure the upload is aborted (no parts left billed). */
export async function putMultipart(client: S3Client, label: string, bucket: string, f: LocalFile, o: MultipartOptions, signal?: AbortSignal): Promise<void> {
  const at = `${label}/${f.key}`;
  let uploadId: string | undefined;
  try {
    const r = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: f.key, Metadata: { [MD5_META]: f.md5.toString('base64') } }), { abortSignal: signal });
    uploadId = r.UploadId;
    if (!uploadId) throw new Error('CreateMultipartUpload returned no UploadId');
  } catch (e) {
    throw s3Error(at, 'CreateMultipartUpload', e);
  }
  const size = partSizeFor(f.size, o.partSize);
  const parts: CompletedPart[] = [];
  try {
    for (let n = 1, start = 0; start < f.size || n === 1; n++, start += size) {
      const len = Math.min(size, f.size - start);
      let r;
      try {
        r = await client.send(new UploadPartCommand({
          Bucket: bucket, Key: f.key, UploadId: uploadId, PartNumber: n, ContentLength: len,
          Body: len ? fs.createReadStream(f.path, { start, end: start + len - 1 }) : Buffer.alloc(0),
        }), { abortSignal: signal });
      } catch (e) {
        throw s3Error(at, `UploadPart ${n}`, e);
      }
      parts.push({ PartNumber: n, ETag: r.ETag });
      if (!len) break;
    }
    try {
      await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: f.key, UploadId: uploadId, MultipartUpload: { Parts: parts } }), { abortSignal: signal });
    } catch (e) {
      throw s3Error(at, 'CompleteMultipartUpload', e);
    }
  } catch (e) {
    // Not with the (maybe aborted) signal: the abort must reach S3 even after a cancel.
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: f.key, UploadId: uploadId })).catch(() => undefined);
    throw e;
  }
}

/** The MD5 (base64) Skydeck recorded on a multipart object, if any. */
export async function recordedMd5(client: S3Client, label: string, bucket: string, key: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    const r = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal });
    const v = r.Metadata?.[MD5_META];
    return v && /^[A-Za-z0-9+/]{22}==$/.test(v) ? v : undefined;
  } catch (e) {
    const err = s3Error(`${label}/${key}`, 'HeadObject', e);
    if (err.kind === 'bucket-missing' || /NotFound|404/.test(err.message)) return undefined;
    throw err;
  }
}
