// A controller over the fake cloud (as aws) whose instances are this machine: the agent runs
// locally (localAgentBootstrap), so every managed job's task really runs.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StateStore, listClusters } from '../../../src/core/state';
import { staticProviders, TAG_UID } from '../../../src/core/clouds/provider';
import { Connections, localAgentBootstrap, type OpsContext } from '../../../src/core/ops';
import { scaledClock, type Clock } from '../../../src/core/provision';
import { ManagedController, type ManagedJob, type OpenOptions } from '../../../src/core/managed';
import { FakeProvider, type FakeProviderOptions } from '../../support/fakeCloud/fakeProvider';
import type { FakeCloudStorage } from '../../support/fakeCloud/storage';
import { isLiveStatus } from '../../support/fakeCloud/model';

export const SCALE = 100;

export async function makeCtx(
  root: string, opts: { clock?: Clock; storage?: FakeCloudStorage; onCall?: FakeProviderOptions['onCall'] } = {},
): Promise<{ ctx: OpsContext; cloud: FakeProvider }> {
  const clock = opts.clock ?? scaledClock(SCALE);
  const cloud = new FakeProvider({ cloud: 'aws', clock, ...(opts.storage ? { storage: opts.storage } : {}), onCall: opts.onCall });
  const ctx: OpsContext = {
    store: await StateStore.openWorkspace(root), workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
    connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts') }),
    progress: () => undefined, log: () => undefined, warn: () => undefined, user: 'tester',
    providers: staticProviders(cloud), clock, timing: { confirmTimeoutMs: 20 * 60_000 },
  };
  ctx.bootstrap = localAgentBootstrap(ctx);
  return { ctx, cloud };
}

export function tempRoot(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-managed-'));
}

/** Controller options for tests: quick polls (model ms; 20 ms of real time at SCALE). */
export const FAST: OpenOptions = { pollMs: 2_000, leaseTimeoutMs: 20_000 };

export async function openController(ctx: OpsContext, o: OpenOptions = {}): Promise<ManagedController> {
  const c = await ManagedController.open(ctx, { ...FAST, ...o });
  await c.start();
  return c;
}

/** Polls the store until `pred` holds for job `id` (bounded, so a hang fails the test). */
export async function waitJob(c: ManagedController, id: number, pred: (j: ManagedJob) => boolean, what: string, ms = 40_000): Promise<ManagedJob> {
  const end = Date.now() + ms;
  for (;;) {
    const j = (await c.list()).jobs.find((x) => x.id === id);
    if (j && pred(j)) return j;
    if (Date.now() > end) throw new Error(`job ${id} never became ${what}; it is ${j?.status} (${j?.lastError ?? ''})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const ended = (j: ManagedJob) => ['SUCCEEDED', 'FAILED', 'FAILED_SETUP', 'FAILED_NO_RESOURCE', 'FAILED_CONTROLLER', 'CANCELLED'].includes(j.status) && !j.clusterName;

/** The job's clusters as the cloud holds them: name → uids seen, and whether any is live. */
export function clustersOf(cloud: FakeProvider, jobId: number): Map<string, { uids: Set<string>; live: boolean; regions: Set<string> }> {
  const out = new Map<string, { uids: Set<string>; live: boolean; regions: Set<string> }>();
  for (const i of cloud.truth()) {
    const name = i.tags['skydeck-cluster'] ?? '';
    if (!new RegExp(`-mj${jobId}-\\d+$`).test(name)) continue;
    const e = out.get(name) ?? { uids: new Set(), live: false, regions: new Set() };
    e.uids.add(i.tags[TAG_UID]);
    e.regions.add(i.region);
    e.live ||= isLiveStatus(i.status);
    out.set(name, e);
  }
  return out;
}

export async function rowNames(ctx: OpsContext): Promise<string[]> {
  return (await ctx.store.read((db) => listClusters(db))).map((c) => c.name);
}
