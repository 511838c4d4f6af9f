import type { GcpClients } from './clients';
import type { GcpProviderOptions } from './options';

// IAM (iam.googleapis.com v1) and Cloud Resource Manager (cloudresourcemanager.googleapis.com
// v1) have no client in @google-cloud/compute, and Skydeck adds no package for four calls: they
// go as plain JSON over fetch, authorised by the Compute client's own GoogleAuth (same
// credentials, scopes compute + cloud-platform). An apiEndpoint option (tests: the local fake)
// moves both hosts, as it moves Compute's.

export type GcpService = 'iam' | 'crm';

const HOSTS: Record<GcpService, string> = { iam: 'iam.googleapis.com', crm: 'cloudresourcemanager.googleapis.com' };
const TIMEOUT_MS = 60_000;

/** An HTTP error of these APIs: `{error: {code, message, status}}` (google.rpc.Status, no errors[]). */
export class GcpRestError extends Error {
  constructor(readonly httpStatusCode: number, readonly status: string, message: string) {
    super(message);
  }
}

export function restBase(service: GcpService, o: GcpProviderOptions): string {
  if (!o.apiEndpoint) return `https://${HOSTS[service]}`;
  return `${o.protocol ?? 'https'}://${o.apiEndpoint}${o.port ? `:${o.port}` : ''}`;
}

/** One call; `path` starts at the version ("/v1/projects/…"). Resolves to the parsed body. */
export async function gcpRest<T>(c: GcpClients, service: GcpService, method: string, path: string, body?: unknown): Promise<T> {
  const url = `${restBase(service, c.options)}${path}`;
  const headers = await c.instances.auth.getRequestHeaders(url);
  headers.set('content-type', 'application/json');
  const res = await fetch(url, {
    method, headers, signal: AbortSignal.timeout(TIMEOUT_MS), ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    json = undefined;
  }
  if (res.ok && json !== undefined) return json as T;
  const err = (json as { error?: { message?: string; status?: string } } | undefined)?.error;
  throw new GcpRestError(res.status, err?.status ?? '', err?.message ?? (text.slice(0, 200) || res.statusText));
}
