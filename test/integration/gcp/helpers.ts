// Shared set-up of the GCP suites: the local Compute fake and providers pointed at it (the
// apiEndpoint/port/protocol options) through Skydeck's REST client, with a fixed bearer token.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { OAuth2Client } from 'google-auth-library';
import { createGcpProvider, type GcpProviderOptions } from '../../../src/core/clouds/gcp';
import { tagsFor, type NodeShape, type RunRequest } from '../../../src/core/clouds/provider';
import { GcpFake } from '../../support/fakes/gcpFake/server';
import { StateStore } from '../../../src/core/state';
import { staticProviders, type Provider } from '../../../src/core/clouds/provider';
import { Connections, type OpsContext } from '../../../src/core/ops';
import { makeEnv, realClock, type Bootstrap, type ProvisionEnv, type ProvisionTiming } from '../../../src/core/provision';

export const PROJECT = 'skydeck-test';
export const REGION = 'us-central1';

/** An auth client that always has a (fake) access token: requests carry "Authorization: Bearer …". */
export function tokenClient(): OAuth2Client {
  const c = new OAuth2Client();
  c.setCredentials({ access_token: 'fake-token', expiry_date: Date.now() + 3600_000 });
  return c;
}

export interface GcpBed {
  fake: GcpFake;
  dir: string;
  /** Provider options pointing at the fake, with an empty gcloud dir and environment. */
  options(extra?: Partial<GcpProviderOptions>): GcpProviderOptions;
  provider(extra?: Partial<GcpProviderOptions>): ReturnType<typeof createGcpProvider>;
  close(): Promise<void>;
}

export async function startGcpBed(): Promise<GcpBed> {
  // Lists page at 2: every listing the provider makes must follow nextPageToken.
  const fake = await new GcpFake({ project: PROJECT, stepMs: 25, pageSize: 2 }).start();
  fake.requireAuth = true;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-gcp-'));
  const made: ReturnType<typeof createGcpProvider>[] = [];
  const options = (extra: Partial<GcpProviderOptions> = {}): GcpProviderOptions => ({
    project: PROJECT, apiEndpoint: '127.0.0.1', port: fake.port, protocol: 'http', authClient: tokenClient(),
    keyDir: path.join(dir, 'keys'), catalogDir: path.join(dir, 'catalog'), gcloudConfigDir: path.join(dir, 'gcloud'), env: {}, pollMs: 10, operationTimeoutMs: 10_000, ...extra,
  });
  return {
    fake, dir, options,
    provider: (extra = {}) => {
      const p = createGcpProvider(options(extra));
      made.push(p);
      return p;
    },
    close: async () => {
      await Promise.all(made.map((p) => p.dispose()));
      await fake.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `resources`: the node shape, put on the placement as the provision loop does. */
export function runRequest(over: Partial<RunRequest> & { zone?: string; instanceType?: string; useSpot?: boolean; resources?: NodeShape } = {}): RunRequest {
  const uid = over.uid ?? randomUUID();
  const clusterName = over.clusterName ?? `c-${uid.slice(0, 6)}`;
  const zone = over.zone ?? 'us-central1-a';
  const placement = over.placement ?? { cloud: 'gcp', region: REGION, zone, instanceType: over.instanceType ?? 'e2-standard-2', useSpot: !!over.useSpot };
  return {
    uid, clusterName, workspaceId: 'ws-test', numNodes: over.numNodes ?? 1, region: REGION, zone,
    placement: over.resources ? { ...placement, resources: over.resources } : placement,
    tags: tagsFor({ clusterName, uid, workspaceId: 'ws-test' }),
  };
}

/** The suites provision without an agent: the fake's instances are not machines to bootstrap. */
export const noBootstrap: Bootstrap = async () => ({ workdir: '/tmp' });

/** Fast timing for the fake (it answers in milliseconds); a suite overrides what it tests. */
export const FAST_TIMING: Partial<ProvisionTiming> = { launchGraceMs: 300, pollMs: 40, runningTimeoutMs: 5000, confirmTimeoutMs: 5000, reissueAfterMs: 1000, transientRetries: 1, backoffMs: 40 };

/** A quiet provision env over a fresh workspace state in the bed's directory, on the wall clock. */
export async function bedEnv(bed: GcpBed, provider: Provider, timing: Partial<ProvisionTiming> = FAST_TIMING): Promise<{ store: StateStore; env: ProvisionEnv }> {
  const store = await StateStore.openWorkspace(fs.mkdtempSync(path.join(bed.dir, 'ws-')));
  return { store, env: makeEnv({ store, clock: realClock, progress: () => undefined, log: () => undefined, timing }, provider) };
}

/**
 * An ops context over a fresh workspace in the bed's directory: `provider`, FAST_TIMING, no
 * agent bootstrap, none of this machine's ssh settings; progress and warnings go to `progress`.
 */
export async function bedOpsContext(bed: GcpBed, provider: Provider, progress?: string[]): Promise<OpsContext> {
  const root = fs.mkdtempSync(path.join(bed.dir, 'ws-'));
  const noSsh = fs.mkdtempSync(path.join(bed.dir, 'no-ssh-'));
  return {
    store: await StateStore.openWorkspace(root), workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
    connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts'), workspaceRoot: root, sshDefaults: { agent: false, sshDir: noSsh, userKnownHostsFiles: [] } }),
    progress: (m) => progress?.push(m), log: () => undefined, warn: (m) => progress?.push(`warn: ${m}`), user: 'tester',
    providers: staticProviders(provider), clock: realClock, timing: FAST_TIMING, bootstrap: noBootstrap,
  };
}
