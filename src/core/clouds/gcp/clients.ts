import { GoogleAuth, type AuthClient } from 'google-auth-library';
import { ProviderError } from '../provider';
import { localProject, PROJECT_FIX } from './project';
import type { GcpProviderOptions } from './options';
import { apiRoot, pages, restCall, type CallOptions, type Query } from './rest';
import type { ListPage } from './types';

/** Compute's own scope and the broad one (what the Compute client libraries ask for). */
const SCOPES = ['https://www.googleapis.com/auth/cloud-platform', 'https://www.googleapis.com/auth/compute'];

/** Reads wait for an answer this long; mutations and operations.wait (which holds ~2 min) longer. */
const READ_TIMEOUT_MS = 60_000;
const WRITE_TIMEOUT_MS = 600_000;

/**
 * The Compute Engine v1 REST API (compute.googleapis.com/compute/v1/…) as one provider calls it:
 * the same credentials and endpoint for every call. Paths start after "compute/v1/". Reads are
 * tried again on 503/504 (`sdkRetries` times); mutations never, as they carry a requestId the
 * caller chose and the provision loop decides what to do next.
 */
export class GcpClients {
  readonly auth: GoogleAuth<AuthClient>;
  private readonly root: string;
  private project?: Promise<string>;

  constructor(readonly options: GcpProviderOptions) {
    // authClient is typed `unknown` in the options so that importing them loads no library.
    const authClient = options.authClient as AuthClient | undefined;
    this.auth = new GoogleAuth<AuthClient>({ scopes: SCOPES, ...(authClient ? { authClient } : {}) });
    this.root = `${apiRoot('compute.googleapis.com', options)}/compute/v1/`;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return restCall<T>(this.auth, 'GET', this.root + path, { query, timeoutMs: READ_TIMEOUT_MS, retries: this.options.sdkRetries ?? 2 });
  }

  post<T>(path: string, body?: unknown, query?: Query): Promise<T> {
    return this.write<T>('POST', path, { body, query });
  }

  patch<T>(path: string, body: unknown, query?: Query): Promise<T> {
    return this.write<T>('PATCH', path, { body, query });
  }

  /** A full replace (e.g. firewalls.update: fields the body leaves out are cleared). */
  put<T>(path: string, body: unknown, query?: Query): Promise<T> {
    return this.write<T>('PUT', path, { body, query });
  }

  delete<T>(path: string, query?: Query): Promise<T> {
    return this.write<T>('DELETE', path, { query });
  }

  /** Every item of a list method, page by page (query: filter, maxResults…). */
  async list<T>(path: string, query: Query = {}): Promise<T[]> {
    const out: T[] = [];
    for await (const page of pages((pageToken) => this.get<ListPage<T>>(path, { ...query, pageToken }))) out.push(...(page.items ?? []));
    return out;
  }

  /** The project: found locally (option, env, gcloud config, ADC file), else asked of the auth library (GCE metadata). */
  projectId(): Promise<string> {
    this.project ??= (async () => {
      const local = localProject(this.options);
      if (local) return local;
      try {
        return await this.auth.getProjectId();
      } catch {
        throw new ProviderError('auth', 'no GCP project is configured', PROJECT_FIX);
      }
    })();
    this.project.catch(() => (this.project = undefined)); // a later fix (gcloud config) is picked up
    return this.project;
  }

  /** Nothing to release: each call is one fetch (kept so a provider's dispose stays the same). */
  async close(): Promise<void> {}

  private write<T>(method: string, path: string, o: CallOptions): Promise<T> {
    return restCall<T>(this.auth, method, this.root + path, { ...o, timeoutMs: WRITE_TIMEOUT_MS });
  }
}
