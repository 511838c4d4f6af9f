// A local fake of the Cloud Storage JSON API v1 (https://cloud.google.com/storage/docs/json_api/v1)
// on 127.0.0.1, plain http, for the real @google-cloud/storage client (apiEndpoint) and rclone's
// gcs backend (endpoint + a service-account key whose token_uri is this fake's /token).
// Routes: buckets insert/get/list/patch/delete under /storage/v1/b, objects under
// /storage/v1/b/{b}/o, uploads under /upload/storage/v1/b/{b}/o, media under /download/storage/v1.
// Every request but /token and a resumable session's PUTs needs "Authorization: Bearer <token>" of a token this fake knows.
import type * as http from 'node:http';
import { LoopbackHttp } from '../loopbackHttp';
import { GcsHttpError, gcsError, anonymous, bucketNotEmpty, bucketTaken, forbidden, invalidCredentials, noSuchBucket, required } from './errors';
import { GcsModel, checkBucketName, checkLabels, pageOf, renderBucket, renderObject, type FakeBucket } from './model';
import { getObject, insertObject, listObjects, sendMedia } from './objects';
import { Sessions, hashHeader, incomplete, isChunk, parseMultipart } from './uploads';
import { TokenIssuer, type FakeServiceAccount } from './serviceAccount';

type Json = Record<string, unknown>;

export class GcsFake extends LoopbackHttp {
  readonly model = new GcsModel();
  /** Bearer tokens accepted; `fake-token` is the one test/integration/gcp/helpers.ts tokenClient() sends. */
  readonly tokens = new Set(['fake-token']);
  /** Tokens that authenticate but hold no storage permission (403 on every call). */
  readonly deniedTokens = new Set<string>();
  /**
   * Deciders for tokens this fake does not issue (tests: a GCE instance's token, whose account's
   * bucket IAM the Compute fake holds): the caller's e-mail and whether it may act on the bucket,
   * or undefined when the token is not theirs. A refusal is the service's 403.
   */
  readonly deciders: ((token: string, bucket: string | undefined) => { who: string; allowed: boolean } | undefined)[] = [];
  /** Lists page at most this many results, so callers must follow nextPageToken. */
  pageSize = 1000;
  /** Every request as "METHOD path?query", for tests that count calls (uploads sent, pages read). */
  readonly requests: string[] = [];
  private readonly sessions = new Sessions();
  private readonly issuer = new TokenIssuer();

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** A service-account key (JSON) for this fake: its token_uri is this server, its tokens are accepted. */
  serviceAccountKey(project: string): FakeServiceAccount {
    return this.issuer.issueKey(project, `${this.endpoint}/token`);
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    this.requests.push(`${method} ${url.pathname}${url.search}`);
    try {
      if (url.pathname === '/token' && method === 'POST') {
        const t = this.issuer.token(new URLSearchParams(body.toString('utf8')));
        if (t.token) this.tokens.add(t.token);
        return json(res, t.status, t.body);
      }
      // A resumable session URI is itself the credential for its chunks (the real service does not
      // ask them for a token; https://cloud.google.com/storage/docs/resumable-uploads#session-uris).
      const sessionPut = isChunk(method) && url.pathname.startsWith('/upload/') && url.searchParams.has('upload_id');
      if (!sessionPut) this.authorize(req.headers.authorization, method, url.pathname);
      const base = `http://${req.headers.host ?? `127.0.0.1:${this.port}`}`;
      const out = this.route(req, res, method, url, body, base);
      if (out !== undefined) json(res, out.status ?? 200, out.body, out.headers);
    } catch (e) {
      if (!(e instanceof GcsHttpError)) {
        json(res, 500, { error: { code: 500, message: String(e), errors: [{ message: String(e), domain: 'global', reason: 'backendError' }] } });
        return;
      }
      json(res, e.status, e.body);
    }
  }

  private authorize(header: string | undefined, method: string, path: string): void {
    const what = /\/b\/([^/]+)/.exec(path)?.[1];
    const permission = `storage.${path.includes('/o') ? 'objects' : 'buckets'}.${method === 'GET' ? 'get' : method === 'DELETE' ? 'delete' : 'create'}`;
    const target = what ? `the Google Cloud Storage bucket ${what}` : 'the Google Cloud project';
    const token = /^Bearer (\S+)$/.exec(header ?? '')?.[1];
    if (!token) throw anonymous(permission, target);
    if (this.deniedTokens.has(token)) throw forbidden('skydeck-test@skydeck-test.iam.gserviceaccount.com', permission, target);
    for (const decide of this.deciders) {
      const d = decide(token, what && decodeURIComponent(what));
      if (!d) continue;
      if (!d.allowed) throw forbidden(d.who, permission, target);
      return;
    }
    if (!this.tokens.has(token)) throw invalidCredentials();
  }

  private bucket(name: string): FakeBucket {
    const b = this.model.buckets.get(name);
    if (!b) throw noSuchBucket();
    return b;
  }

  private route(req: http.IncomingMessage, res: http.ServerResponse, method: string, url: URL, body: Buffer, base: string):
    { status?: number; body?: unknown; headers?: http.OutgoingHttpHeaders } | undefined {
    const q = url.searchParams;
    const p = url.pathname;
    const up = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(p);
    if (up) return this.upload(req, method, q, body, decodeURIComponent(up[1]), base);
    const media = /^\/download\/storage\/v1\/b\/([^/]+)\/o\/(.+)$/.exec(p);
    if (media && method === 'GET') {
      sendMedia(req, res, this.bucket(decodeURIComponent(media[1])), decodeURIComponent(media[2]));
      return undefined;
    }
    const obj = /^\/storage\/v1\/b\/([^/]+)\/o(?:\/(.+))?$/.exec(p);
    if (obj) {
      const b = this.bucket(decodeURIComponent(obj[1]));
      if (!obj[2]) {
        if (method === 'GET') return { body: listObjects(b, q, base, this.pageSize) };
        throw required('Upload requests must go to /upload/storage/v1');
      }
      const name = decodeURIComponent(obj[2]);
      if (method === 'GET' && q.get('alt') === 'media') {
        sendMedia(req, res, b, name);
        return undefined;
      }
      const o = getObject(b, name);
      if (method === 'GET') return { body: renderObject(b, o, base) };
      if (method === 'DELETE') {
        b.objects.delete(name);
        return { status: 204 };
      }
    }
    if (p === '/storage/v1/b') {
      const project = q.get('project');
      if (!project) throw required('Required parameter: project');
      if (method === 'GET') {
        const prefix = q.get('prefix') ?? '';
        const mine = [...this.model.buckets.values()].filter((b) => b.project === project && b.name.startsWith(prefix));
        const page = pageOf(mine, q, this.pageSize);
        return { body: { kind: 'storage#buckets', ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}), ...(page.items.length ? { items: page.items.map((b) => renderBucket(this.model, b, base)) } : {}) } };
      }
      if (method === 'POST') return { body: this.insertBucket(project, parse(body), base) };
    }
    const one = /^\/storage\/v1\/b\/([^/]+)$/.exec(p);
    if (one) {
      const b = this.bucket(decodeURIComponent(one[1]));
      if (method === 'GET') return { body: renderBucket(this.model, b, base) };
      if (method === 'PATCH' || method === 'PUT') return { body: this.patchBucket(b, parse(body), method === 'PUT', base) };
      if (method === 'DELETE') {
        if (b.objects.size) throw bucketNotEmpty(b.name);
        this.model.buckets.delete(b.name);
        return { status: 204 };
      }
    }
    throw gcsError(404, 'Not Found', 'notFound');
  }

  private insertBucket(project: string, r: Json, base: string): Json {
    const name = String(r.name ?? '');
    if (!name) throw required('Required');
    checkBucketName(name);
    checkLabels((r.labels as Json | undefined) ?? {});
    if (this.model.buckets.has(name)) throw bucketTaken();
    const now = new Date().toISOString();
    const b: FakeBucket = {
      name, project, location: String(r.location ?? 'US').toUpperCase(), storageClass: String(r.storageClass ?? 'STANDARD'),
      labels: { ...((r.labels as Record<string, string> | undefined) ?? {}) }, created: now, updated: now, metageneration: 1, objects: new Map(),
    };
    this.model.buckets.set(name, b);
    return renderBucket(this.model, b, base);
  }

  /** patch: labels merge, a null value removes the label (buckets/patch); update (PUT) replaces them. */
  private patchBucket(b: FakeBucket, r: Json, replace: boolean, base: string): Json {
    if (r.labels !== undefined) {
      const labels = (r.labels ?? {}) as Record<string, string | null>;
      checkLabels(labels);
      const next: Record<string, string> = replace ? {} : { ...b.labels };
      for (const [k, v] of Object.entries(labels)) if (v === null) delete next[k]; else next[k] = v;
      b.labels = next;
    }
    b.metageneration++;
    b.updated = new Date().toISOString();
    return renderBucket(this.model, b, base);
  }

  private upload(req: http.IncomingMessage, method: string, q: URLSearchParams, body: Buffer, bucketName: string, base: string) {
    const b = this.bucket(bucketName);
    const type = q.get('uploadType');
    const id = q.get('upload_id');
    if (id && isChunk(method)) {
      const out = this.sessions.put(id, req.headers['content-range'], body, hashHeader(req.headers['x-goog-hash']));
      if (!out.done) return incomplete(out.received, req.headers['x-guploader-no-308'] === 'yes');
      return { body: insertObject(this.model, b, out.upload, base) };
    }
    if (method !== 'POST') throw gcsError(405, 'Method Not Allowed', 'methodNotAllowed');
    if (type === 'media') {
      if (!q.get('name')) throw required('Required parameter: name');
      return { body: insertObject(this.model, b, { name: q.get('name')!, data: body, contentType: req.headers['content-type'] ?? 'application/octet-stream' }, base) };
    }
    if (type === 'multipart') return { body: insertObject(this.model, b, parseMultipart(req.headers['content-type'] ?? '', body, q.get('name')), base) };
    if (type === 'resumable') {
      const session = this.sessions.start(b.name, q.get('name'), body, type);
      return { status: 200, body: '', headers: { location: `${base}/upload/storage/v1/b/${encodeURIComponent(b.name)}/o?${session}` } };
    }
    throw required(`Invalid upload type: ${type}`);
  }
}

function parse(body: Buffer): Json {
  return body.length ? (JSON.parse(body.toString('utf8')) as Json) : {};
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  if (status === 204 || status === 308 || body === '') {
    res.writeHead(status, { ...headers, 'content-length': 0 });
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
