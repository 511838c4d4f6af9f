// The upload every store does: compare each local file's size and MD5 with what the store holds
// (GCS md5Hash, Azure Content-MD5, S3's single-part ETag), then send only what differs, a few at
// a time, with progress. Files are hashed as streams, so large ones cost no memory.
import { BUCKET_MARKER } from '../marker';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { StorageError } from '../errors';
import type { UploadProgress, UploadResult } from './types';

export interface LocalFile {
  path: string;
  key: string;
  size: number;
  md5: Buffer;
}

export async function describe(path: string, key: string): Promise<LocalFile> {
  const st = await stat(path);
  if (!st.isFile()) throw new Error(`${path} is not a regular file`);
  const h = createHash('md5');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return { path, key, size: st.size, md5: h.digest() };
}

/** Runs `fn` over `items`, at most `limit` at a time; the first failure rejects (the rest still settle). */
export async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** What the store holds under a key: its size, and its MD5 (base64) where the store knows it. */
export interface Held {
  size: number;
  md5?: string;
}

export interface UploadPlan {
  /** "s3://bkt", for messages. */
  label: string;
  files: Map<string, string>;
  held: Map<string, Held>;
  limit: number;
  /** Sends one file (new or changed). */
  send(f: LocalFile): Promise<void>;
  onProgress?: (p: UploadProgress) => void;
  signal?: AbortSignal;
}

/** Sends the files whose object is missing or differs; stops between files once `signal` aborts. */
export async function uploadChanged(u: UploadPlan): Promise<UploadResult> {
  // Hashed a few at a time: one stream per file at once would run out of descriptors on a big tree.
  // The marker is Skydeck's (R2 ownership tags, storage/marker.ts): a workspace file of that name
  // would rewrite whose bucket it is. Jobs never see it, so it is not sent.
  const entries = [...u.files].filter(([, key]) => key !== BUCKET_MARKER);
  const local: LocalFile[] = new Array(entries.length);
  await eachLimited(entries.map((e, i) => ({ e, i })), 16, async ({ e: [path, key], i }) => {
    local[i] = await describe(path, key);
  });
  const changed = local.filter((f) => {
    const o = u.held.get(f.key);
    return !o || o.size !== f.size || o.md5 !== f.md5.toString('base64');
  });
  const p: UploadProgress = { files: 0, bytes: 0, totalFiles: changed.length, totalBytes: changed.reduce((n, f) => n + f.size, 0) };
  u.onProgress?.({ ...p });
  await eachLimited(changed, u.limit, async (f) => {
    if (u.signal?.aborted) throw new StorageError('failed', u.label, 'the upload was cancelled', 'Launch again to send the rest (files already sent are skipped).');
    await u.send(f);
    p.files++;
    p.bytes += f.size;
    u.onProgress?.({ ...p });
  });
  return { uploaded: changed.length, unchanged: local.length - changed.length, bytes: p.bytes };
}
