// What an upload compares: a local file's size and MD5 (the hash GCS reports as md5Hash and
// Azure as Content-MD5, both base64), read as a stream so large files cost no memory.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

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
