// objects.insert as the upload endpoint takes it (https://cloud.google.com/storage/docs/json_api/v1/objects/insert,
// "Upload URI": POST /upload/storage/v1/b/{bucket}/o with uploadType media | multipart | resumable),
// as @google-cloud/storage 7 sends it: files under 5 MB as multipart/related (JSON metadata part,
// then the data part), larger ones resumable (a POST that answers a session URI in Location,
// then PUTs with Content-Range "bytes 0-*/N" for a single-request upload or "bytes a-b/N|*"
// per chunk, 308 + Range until the last; https://cloud.google.com/storage/docs/performing-resumable-uploads).
// Go's client (google-api-go-client internal/gensupport/resumable.go, which rclone's gcs backend
// uses) sends each chunk as a POST to the session URI with "X-GUploader-No-308: yes", and the
// service then answers "resume incomplete" as 200 with "X-HTTP-Status-Code-Override: 308".
import { createHash, randomUUID } from 'node:crypto';
import { crc32cBase64 } from './crc32c';
import { gcsError, invalid, required } from './errors';

export interface Upload {
  name: string;
  data: Buffer;
  contentType: string;
  metadata?: Record<string, string>;
}

interface Session {
  bucket: string;
  name: string;
  contentType: string;
  metadata?: Record<string, string>;
  chunks: Buffer[];
  received: number;
}

export type PutOutcome = { done: true; upload: Upload; bucket: string } | { done: false; received: number };

/** A multipart/related body: the first part is the object resource (JSON), the second the data; the name in the resource or in `name=`. */
export function parseMultipart(contentType: string, body: Buffer, queryName: string | null): Upload {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (!/^multipart\/related/i.test(contentType) || !boundary) throw invalid('Content-Type must be multipart/related with a boundary for uploadType=multipart');
  const delim = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let at = body.indexOf(delim);
  while (at >= 0) {
    const next = body.indexOf(delim, at + delim.length);
    if (next < 0) break;
    parts.push(body.subarray(at + delim.length, next));
    at = next;
  }
  if (parts.length !== 2) throw invalid(`Multipart upload must have exactly 2 parts, got ${parts.length}`);
  const split = (p: Buffer): { headers: string; content: Buffer } => {
    const end = p.indexOf('\r\n\r\n');
    if (end < 0) throw invalid('Malformed multipart part');
    // The part's content ends before the CRLF that precedes the next delimiter.
    const content = p.subarray(end + 4, p.length - (p.subarray(-2).toString() === '\r\n' ? 2 : 0));
    return { headers: p.subarray(0, end).toString('utf8'), content };
  };
  const meta = JSON.parse(split(parts[0]).content.toString('utf8')) as Record<string, unknown>;
  const media = split(parts[1]);
  const partType = /content-type:\s*([^\r\n]+)/i.exec(media.headers)?.[1].trim();
  const upload = fromMeta(meta, queryName, media.content, partType);
  checkHashes(upload.data, meta.md5Hash as string | undefined, meta.crc32c as string | undefined);
  return upload;
}

function fromMeta(meta: Record<string, unknown>, queryName: string | null | undefined, data: Buffer, type?: string): Upload {
  const name = (meta.name as string | undefined) ?? queryName ?? '';
  if (!name) throw required('Required');
  return { name, data, contentType: (meta.contentType as string | undefined) ?? type ?? 'application/octet-stream', metadata: meta.metadata as Record<string, string> | undefined };
}

/** A hash the client sent (resource md5Hash/crc32c, or X-Goog-Hash) must match what arrived, else 400 as the service does. */
function checkHashes(data: Buffer, md5?: string, crc?: string): void {
  if (md5 && md5 !== createHash('md5').update(data).digest('base64')) throw invalid(`Provided MD5 hash "${md5}" doesn't match calculated MD5 hash "${createHash('md5').update(data).digest('base64')}".`);
  if (crc && crc !== crc32cBase64(data)) throw invalid(`Provided CRC32C "${crc}" doesn't match calculated CRC32C "${crc32cBase64(data)}".`);
}

export function hashHeader(header: string | string[] | undefined): { md5?: string; crc?: string } {
  const h = Array.isArray(header) ? header.join(',') : header ?? '';
  return { md5: /md5=([^,]+)/.exec(h)?.[1], crc: /crc32c=([^,]+)/.exec(h)?.[1] };
}

/** A chunk to a session URI: PUT as documented, or POST as Go's client sends it. */
export function isChunk(method: string): boolean {
  return method === 'PUT' || method === 'POST';
}

/** "Resume incomplete": 308 + Range, or 200 + the override header when the client asked for no 308. */
export function incomplete(received: number, no308: boolean): { status: number; body: ''; headers: Record<string, string> } {
  const headers: Record<string, string> = received ? { range: `bytes=0-${received - 1}` } : {};
  return no308 ? { status: 200, body: '', headers: { ...headers, 'x-http-status-code-override': '308' } } : { status: 308, body: '', headers };
}

export class Sessions {
  private readonly open = new Map<string, Session>();

  /** The POST that starts a resumable upload: the resource in the body, the name in it or in `name=`. */
  start(bucket: string, queryName: string | null, body: Buffer, uploadType: string | null): string {
    const meta = body.length ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : {};
    const u = fromMeta(meta, queryName, Buffer.alloc(0), undefined);
    const id = randomUUID().replace(/-/g, '');
    this.open.set(id, { bucket, name: u.name, contentType: u.contentType, metadata: u.metadata, chunks: [], received: 0 });
    return `uploadType=${uploadType}&name=${encodeURIComponent(u.name)}&upload_id=${id}`;
  }

  /** A PUT to the session URI: a chunk, the last chunk, or a status query ("bytes *\/N"). */
  put(id: string, range: string | undefined, body: Buffer, hashes: { md5?: string; crc?: string }): PutOutcome {
    const s = this.open.get(id);
    if (!s) throw gcsError(404, 'No such upload session', 'notFound');
    const m = /^bytes (\*|(\d+)-(\d+|\*))\/(\d+|\*)$/.exec(range ?? `bytes 0-*/${body.length}`);
    if (!m) throw invalid(`Invalid Content-Range: ${range}`);
    if (m[1] !== '*') {
      if (Number(m[2]) !== s.received) throw invalid(`Content-Range starts at ${m[2]}, expected ${s.received}`);
      s.chunks.push(body);
      s.received += body.length;
    }
    // "bytes a-*/…": the body runs to the end of the object (the library's single-request form), so it ends the upload.
    const total = m[3] === '*' ? s.received : m[4] === '*' ? undefined : Number(m[4]);
    if (total === undefined || s.received < total) return { done: false, received: s.received };
    const data = Buffer.concat(s.chunks);
    checkHashes(data, hashes.md5, hashes.crc);
    this.open.delete(id);
    return { done: true, bucket: s.bucket, upload: { name: s.name, data, contentType: s.contentType, metadata: s.metadata } };
  }
}
