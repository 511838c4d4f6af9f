import type { GcpClients } from './clients';
import { apiRoot, restCall } from './rest';

// IAM (iam.googleapis.com v1), Cloud Resource Manager (cloudresourcemanager.googleapis.com
// v1) and the bucket IAM policies of Cloud Storage's JSON API (storage.googleapis.com, paths
// /storage/v1/b/…/iam) are called like Compute: plain JSON over REST (rest.ts), authorised by
// the provider's one GoogleAuth (same credentials; its cloud-platform scope covers Storage). An
// apiEndpoint option (tests: the local fake) moves every host, as it moves Compute's.

export type GcpService = 'iam' | 'crm' | 'storage';

const HOSTS: Record<GcpService, string> = { iam: 'iam.googleapis.com', crm: 'cloudresourcemanager.googleapis.com', storage: 'storage.googleapis.com' };
const TIMEOUT_MS = 60_000;

/**
 * One call; `path` starts at the version ("/v1/projects/…"). Resolves to the parsed body; an
 * HTTP error is a GcpApiError (`{error: {code, message, status}}`: google.rpc.Status, no errors[]).
 */
export function gcpRest<T>(c: GcpClients, service: GcpService, method: string, path: string, body?: unknown): Promise<T> {
  return restCall<T>(c.auth, method, `${apiRoot(HOSTS[service], c.options)}${path}`, { body, timeoutMs: TIMEOUT_MS });
}
