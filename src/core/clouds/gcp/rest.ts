import type { AuthClient, GoogleAuth } from 'google-auth-library';
import type { ErrorBody } from './types';

// One JSON call to a Google REST API (Compute, IAM, Resource Manager), authorised with
// google-auth-library's headers and sent with Node's fetch: a credentials failure (none found,
// refresh refused) then comes from the auth library as itself, never mistaken for the API's
// own answer, and every HTTP error of the API becomes one GcpApiError.

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

/**
 * An HTTP error answered by the API: its status, the body's message, its google.rpc.Code name
 * (`status`) and the google.rpc.ErrorInfo of error.details[] (reason, domain, metadata), which
 * is what a client may act on. The legacy error.errors[] reason is kept apart (`legacyReason`).
 */
export class GcpApiError extends Error {
  override readonly name = 'GcpApiError';
  constructor(
    readonly httpStatusCode: number, message: string, readonly status: string,
    readonly reason?: string, readonly domain?: string, readonly errorInfoMetadata?: Record<string, string>, readonly legacyReason?: string,
  ) {
    super(message);
  }
}

/** The GcpApiError for a non-2xx answer (or a 2xx one that is not JSON). */
export function apiError(http: number, text: string, statusText: string): GcpApiError {
  const err = parseJson<ErrorBody>(text)?.error;
  const info = err?.details?.find((d) => d['@type'] === ERROR_INFO);
  const message = err?.message ?? (text.slice(0, 200) || statusText || `HTTP ${http}`);
  return new GcpApiError(http, message, err?.status ?? '', info?.reason, info?.domain, info?.metadata, err?.errors?.[0]?.reason);
}

function parseJson<T>(text: string): T | undefined {
  try {
    return (text ? JSON.parse(text) : {}) as T;
  } catch {
    return undefined;
  }
}

/** fetch's own failure says only "fetch failed": name the host and the cause (ECONNREFUSED, timeout). */
function unreachable(e: unknown, url: string): Error {
  const x = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const why = x.name === 'TimeoutError' ? 'no answer in time' : x.cause?.code ?? x.cause?.message ?? x.message ?? String(e);
  return new Error(`${new URL(url).host} could not be reached (${why})`, { cause: e });
}

export type Query = Record<string, string | number | undefined>;

export interface CallOptions {
  body?: unknown;
  query?: Query;
  timeoutMs?: number;
  /** Tries again this many times on 503 (UNAVAILABLE) or 504 (DEADLINE_EXCEEDED); for idempotent calls only. */
  retries?: number;
}

/** The root of an API: its public host, or the endpoint override (tests: the local fake). */
export interface Endpoint {
  apiEndpoint?: string;
  port?: number;
  protocol?: 'http' | 'https';
}

export function apiRoot(host: string, e: Endpoint): string {
  if (!e.apiEndpoint) return `https://${host}`;
  return `${e.protocol ?? 'https'}://${e.apiEndpoint}${e.port ? `:${e.port}` : ''}`;
}

/** One call; resolves to the parsed JSON body. `url` is absolute, without query. */
export async function restCall<T>(auth: GoogleAuth<AuthClient>, method: string, url: string, o: CallOptions = {}): Promise<T> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) q.set(k, String(v));
  const qs = q.toString();
  const full = qs ? `${url}?${qs}` : url;
  for (let attempt = 0; ; attempt++) {
    // Asked per call: the library caches the token and refreshes it shortly before it expires.
    const headers: Record<string, string> = { ...(await auth.getRequestHeaders(full)), accept: 'application/json' };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(full, {
      method, headers, signal: AbortSignal.timeout(o.timeoutMs ?? 60_000),
      ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
    }).catch((e: unknown) => {
      throw unreachable(e, url);
    });
    const text = await res.text();
    if (res.ok) {
      const json = parseJson<T>(text);
      if (json !== undefined) return json;
    }
    const e = apiError(res.status, res.ok ? `not JSON: ${text.slice(0, 100)}` : text, res.statusText);
    if (!(res.status === 503 || res.status === 504) || attempt >= (o.retries ?? 0)) throw e;
    // The client libraries' schedule for idempotent calls: 100 ms, then ×1.3.
    await new Promise((r) => setTimeout(r, 100 * 1.3 ** attempt));
  }
}

/**
 * Every page of a list method: `fetchPage` is called with each nextPageToken in turn and the
 * walk stops when a page has none (the API omits it on the last page). A token handed back
 * twice in a row would loop for ever: refused as an API fault.
 */
export async function* pages<P extends { nextPageToken?: string }>(fetchPage: (pageToken?: string) => Promise<P>): AsyncGenerator<P> {
  let token: string | undefined;
  for (;;) {
    const page = await fetchPage(token);
    yield page;
    const next = page.nextPageToken || undefined;
    if (!next) return;
    if (next === token) throw new GcpApiError(500, `the API returned the same nextPageToken twice (${next.slice(0, 40)})`, 'INTERNAL');
    token = next;
  }
}
