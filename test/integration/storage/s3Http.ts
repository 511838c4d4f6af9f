// The tests' own view of moto's S3, over plain HTTP (path-style, unsigned: moto does not check
// signatures unless asked to, but treats a request with no Authorization header as anonymous,
// which may not touch an existing private object: a well-formed, unchecked header is sent). @aws-sdk/client-s3 is not a dependency of the repo, and an
// oracle that shares no code with rclone keeps the tests honest.
const AUTH = { Authorization: 'AWS4-HMAC-SHA256 Credential=AKIDSKYDECKTEST/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0' };

export class S3Http {
  constructor(readonly url: string) {}

  private u(bucket: string, key?: string): string {
    return `${this.url}/${encodeURIComponent(bucket)}${key === undefined ? '' : `/${key.split('/').map(encodeURIComponent).join('/')}`}`;
  }

  async createBucket(bucket: string): Promise<void> {
    const r = await fetch(this.u(bucket), { method: 'PUT', headers: AUTH });
    if (!r.ok) throw new Error(`create bucket ${bucket}: HTTP ${r.status} ${await r.text()}`);
  }

  async put(bucket: string, key: string, body: Buffer): Promise<void> {
    const r = await fetch(this.u(bucket, key), { method: 'PUT', body: new Uint8Array(body), headers: AUTH });
    if (!r.ok) throw new Error(`put ${bucket}/${key}: HTTP ${r.status} ${await r.text()}`);
  }

  /** The object's bytes, or undefined when it does not exist. */
  async get(bucket: string, key: string): Promise<Buffer | undefined> {
    const r = await fetch(this.u(bucket, key), { headers: AUTH });
    if (r.status === 404) return undefined;
    if (!r.ok) throw new Error(`get ${bucket}/${key}: HTTP ${r.status}`);
    return Buffer.from(await r.arrayBuffer());
  }

  /** Milliseconds to the first byte of a one-byte ranged GET (the benches' view of the store alone). */
  async firstByteMs(bucket: string, key: string): Promise<number> {
    const t0 = performance.now();
    const r = await fetch(this.u(bucket, key), { headers: { ...AUTH, Range: 'bytes=0-0' } });
    const reader = r.body!.getReader();
    await reader.read();
    const ms = performance.now() - t0;
    await reader.cancel();
    if (r.status !== 206) throw new Error(`ranged get ${bucket}/${key}: HTTP ${r.status}`);
    return ms;
  }

  async keys(bucket: string): Promise<string[]> {
    const r = await fetch(`${this.u(bucket)}?list-type=2&max-keys=1000`, { headers: AUTH });
    if (!r.ok) throw new Error(`list ${bucket}: HTTP ${r.status}`);
    const xml = await r.text();
    return [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1].replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'"));
  }
}
