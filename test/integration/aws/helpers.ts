// Shared set-up of the AWS suites: moto (+ optional fault proxy) and providers pointed at it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createAwsProvider, type AwsProviderOptions } from '../../../src/core/clouds/aws';
import { staticProviders, tagsFor, type Provider, type RunRequest } from '../../../src/core/clouds/provider';
import { StateStore } from '../../../src/core/state';
import { Connections, type OpsContext } from '../../../src/core/ops';
import type { Bootstrap } from '../../../src/core/provision';
import { DUMMY_CREDENTIALS, startMoto, type MotoServer } from '../../support/moto';
import { Ec2FaultProxy } from '../../support/ec2FaultProxy';

export const REGION = 'us-east-1';
/** The account moto answers GetCallerIdentity with. */
export const MOTO_ACCOUNT = '123456789012';

/** moto ships no Ubuntu 22.04 image; its Canonical xenial image stands in for it. */
export const MOTO_UBUNTU = { owner: '099720109477', namePattern: () => 'ubuntu/images/hvm-ssd/ubuntu-xenial-16.04-amd64-server-*' };

export interface AwsBed {
  moto: MotoServer;
  proxy: Ec2FaultProxy;
  dir: string;
  provider(extra?: Partial<AwsProviderOptions>): ReturnType<typeof createAwsProvider>;
  close(): Promise<void>;
}

export async function startBed(): Promise<AwsBed> {
  const moto = await startMoto();
  const proxy = await new Ec2FaultProxy(moto.url).start();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-aws-'));
  const made: ReturnType<typeof createAwsProvider>[] = [];
  return {
    moto, proxy, dir,
    provider: (extra = {}) => {
      const p = createAwsProvider({
        region: REGION, endpoint: proxy.url, stsEndpoint: moto.url, iamEndpoint: moto.url, credentials: DUMMY_CREDENTIALS, maxAttempts: 1,
        keyDir: path.join(dir, 'keys'), catalogDir: path.join(dir, 'catalog'), image: MOTO_UBUNTU,
        cleanupPollMs: 50, cleanupTimeoutMs: 5000, ...extra,
      });
      made.push(p);
      return p;
    },
    close: async () => {
      for (const p of made) {
        await p.settled();
        p.dispose();
      }
      await proxy.stop();
      await moto.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function runRequest(over: Partial<RunRequest> & { zone?: string; instanceType?: string; useSpot?: boolean } = {}): RunRequest {
  const uid = over.uid ?? randomUUID();
  const clusterName = over.clusterName ?? `c-${uid.slice(0, 6)}`;
  return {
    uid, clusterName, workspaceId: 'ws-test', numNodes: over.numNodes ?? 1, region: REGION,
    placement: over.placement ?? { cloud: 'aws', region: REGION, zone: over.zone, instanceType: over.instanceType ?? 't3.micro', useSpot: !!over.useSpot },
    tags: tagsFor({ clusterName, uid, workspaceId: 'ws-test' }),
  };
}

/** The suites that provision without an agent: moto's instances are records, not machines. */
const noBootstrap: Bootstrap = async () => ({ workdir: '/tmp' });

/** A quiet ops context over a fresh workspace in the bed's directory, with `provider` and no agent bootstrap. */
export async function bedOpsContext(bed: AwsBed, provider: Provider): Promise<OpsContext> {
  const root = fs.mkdtempSync(path.join(bed.dir, 'ws-'));
  return {
    store: await StateStore.openWorkspace(root), workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
    connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts'), workspaceRoot: root }),
    progress: () => undefined, log: () => undefined, warn: () => undefined, user: 'tester',
    providers: staticProviders(provider), bootstrap: noBootstrap,
    timing: { launchGraceMs: 2000, pollMs: 100, runningTimeoutMs: 20_000, confirmTimeoutMs: 5000, reissueAfterMs: 1000, transientRetries: 1, backoffMs: 50 },
  };
}
