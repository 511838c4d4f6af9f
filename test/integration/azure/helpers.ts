// Shared set-up of the Azure suites: the local https ARM fake (self-signed cert for 127.0.0.1)
// and providers pointed at it through the real @azure/arm-* clients with a fixed token.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Context } from 'mocha';
import { createAzureProvider, type AzureProviderOptions } from '../../../src/core/clouds/azure';
import { staticProviders, tagsFor, type NodeShape, type Provider, type RunRequest } from '../../../src/core/clouds/provider';
import { StateStore } from '../../../src/core/state';
import { Connections, type OpsContext } from '../../../src/core/ops';
import type { Bootstrap } from '../../../src/core/provision';
import { AzureFake } from '../../support/fakes/azureFake/server';
import { makeCert } from '../../support/fakes/azureFake/tls';
import { skipOrFailWithout } from '../../support/ci';

export const REGION = 'eastus';

/** A TokenCredential that always has a (fake) token: requests carry "Authorization: Bearer …". */
export const fixedToken = { getToken: async () => ({ token: 'fake-token', expiresOnTimestamp: Date.now() + 3600_000 }) };

export interface AzureBed {
  fake: AzureFake;
  dir: string;
  ca: string;
  options(extra?: Partial<AzureProviderOptions>): AzureProviderOptions;
  provider(extra?: Partial<AzureProviderOptions>): ReturnType<typeof createAzureProvider>;
  close(): Promise<void>;
}

/** The bed; without a certificate, a failure under CI, else a skipped suite with one loud line. */
export async function startAzureBed(ctx: Context): Promise<AzureBed> {
  const cert = makeCert();
  if ('missing' in cert) skipOrFailWithout(ctx, 'the Azure provider suites', `${cert.missing} (install openssl)`);
  const tls = cert as Exclude<typeof cert, { missing: string }>;
  const fake = await new AzureFake(tls).start();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-az-'));
  const options = (extra: Partial<AzureProviderOptions> = {}): AzureProviderOptions => ({
    subscriptionId: fake.model.subscription, region: REGION, endpoint: fake.endpoint, credential: fixedToken, ca: tls.cert,
    keyDir: path.join(dir, 'keys'), catalogDir: path.join(dir, 'catalog'), azureConfigDir: path.join(dir, 'azure'), env: {}, pollMs: 10, sdkRetries: 0, ...extra,
  });
  return {
    fake, dir, ca: tls.cert, options,
    provider: (extra = {}) => createAzureProvider(options(extra)),
    close: async () => {
      await fake.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `resources`: the node shape, put on the placement as the provision loop does. */
export function runRequest(over: Partial<RunRequest> & { instanceType?: string; useSpot?: boolean; resources?: NodeShape } = {}): RunRequest {
  const uid = over.uid ?? randomUUID();
  const clusterName = over.clusterName ?? `c-${uid.slice(0, 6)}`;
  const region = over.region ?? REGION;
  const placement = over.placement ?? { cloud: 'azure', region, instanceType: over.instanceType ?? 'Standard_D2s_v5', useSpot: !!over.useSpot };
  return {
    uid, clusterName, workspaceId: 'ws-test', numNodes: over.numNodes ?? 1, region,
    placement: over.resources ? { ...placement, resources: over.resources } : placement,
    tags: tagsFor({ clusterName, uid, workspaceId: 'ws-test' }),
  };
}

/** An ops context over the bed's provider, with no bootstrap (nodes are the fake's), fast timing. */
export async function bedOpsContext(bed: AzureBed, provider: Provider, hooks: { progress?: (m: string) => void; warn?: (m: string) => void } = {}): Promise<OpsContext> {
  const root = fs.mkdtempSync(path.join(bed.dir, 'ws-'));
  return {
    store: await StateStore.openWorkspace(root), workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
    connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts'), workspaceRoot: root }),
    progress: hooks.progress ?? (() => undefined), log: () => undefined, warn: hooks.warn ?? (() => undefined), user: 'tester',
    providers: staticProviders(provider), bootstrap: noBootstrap, identityReleaseMs: 10_000,
    timing: { launchGraceMs: 2000, pollMs: 50, runningTimeoutMs: 5000, confirmTimeoutMs: 5000, reissueAfterMs: 1000, transientRetries: 1, backoffMs: 50 },
  };
}

const noBootstrap: Bootstrap = async () => ({ workdir: '/tmp' });
