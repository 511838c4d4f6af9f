// The objects collection (https://cloud.google.com/storage/docs/json_api/v1/objects): list
// (prefix, delimiter, pageToken, maxResults → {kind: storage#objects, items, prefixes,
// nextPageToken}), get (metadata, or the bytes with alt=media, also at the /download/ path the
// resource's mediaLink names), delete (204), and the stored result of an insert.
import type * as http from 'node:http';
import { createHash } from 'node:crypto';
import { crc32cBase64 } from './crc32c';
import { noSuchObject } from './errors';
import { pageOf, renderObject, type FakeBucket, type GcsModel } from './model';
import type { Upload } from './uploads';

export function insertObject(m: GcsModel, b: FakeBucket, u: Upload, base: string): Record<string, unknown> {
  const o = { ...u, generation: m.generation(), created: new Date().toISOString() };
  b.objects.set(u.name, o);
  return renderObject(b, o, base);
}

export function listObjects(b: FakeBucket, q: URLSearchParams, base: string, pageSize: number): Record<string, unknown> {
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  // With a delimiter, names with it past the prefix collapse to one "prefixes" entry each; both kinds page together by name.
  const entries = new Map<string, { name: string; obj?: string }>();
  for (const name of b.objects.keys()) {
    if (!name.startsWith(prefix)) continue;
    const cut = delimiter ? name.indexOf(delimiter, prefix.length) : -1;
    if (cut >= 0) entries.set(name.slice(0, cut + delimiter.length), { name: name.slice(0, cut + delimiter.length) });
    else entries.set(name, { name, obj: name });
  }
  const page = pageOf([...entries.values()], q, pageSize);
  const items = page.items.filter((e) => e.obj).map((e) => renderObject(b, b.objects.get(e.obj!)!, base));
  const prefixes = page.items.filter((e) => !e.obj).map((e) => e.name);
  return { kind: 'storage#objects', ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}), ...(prefixes.length ? { prefixes } : {}), ...(items.length ? { items } : {}) };
}

export function getObject(b: FakeBucket, name: string) {
  const o = b.objects.get(name);
  if (!o) throw noSuchObject(b.name, name);
  return o;
}

/** alt=media: the bytes, with the x-goog-hash / x-goog-generation headers clients check; one `Range: bytes=a-b` honoured (206). */
export function sendMedia(req: http.IncomingMessage, res: http.ServerResponse, b: FakeBucket, name: string): void {
  const o = getObject(b, name);
  const headers: http.OutgoingHttpHeaders = {
    'content-type': o.contentType,
    'x-goog-hash': `crc32c=${crc32cBase64(o.data)},md5=${createHash('md5').update(o.data).digest('base64')}`,
    'x-goog-generation': o.generation, 'x-goog-metageneration': '1', 'x-goog-stored-content-length': String(o.data.length),
    'x-goog-storage-class': b.storageClass, 'accept-ranges': 'bytes',
  };
  const r = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (r && o.data.length) {
    const start = Number(r[1]);
    const end = Math.min(r[2] ? Number(r[2]) : o.data.length - 1, o.data.length - 1);
    res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${o.data.length}`, 'content-length': end - start + 1 });
    res.end(o.data.subarray(start, end + 1));
    return;
  }
  res.writeHead(200, { ...headers, 'content-length': o.data.length });
  res.end(o.data);
}
