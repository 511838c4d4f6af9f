// A workspace + fake cloud + scaled clock for provision tests, and the leak invariants.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StateStore, listClusters, type ClusterRecord } from '../../../src/core/state';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { makeEnv, scaledClock, type Clock, type ProvisionEnv, type ProvisionTiming, type Bootstrap } from '../../../src/core/provision';
import { FakeProvider, type FakeProviderOptions } from './fakeProvider';
import { isLiveStatus, type FakeDelays } from './model';
import { emptyState } from './model';
import { memoryStorage, type FakeCloudStorage } from './storage';

export interface Harness {
  root: string;
  store: StateStore;
  cloud: FakeProvider;
  clock: Clock;
  env: ProvisionEnv;
  progress: string[];
  dispose(): void;
}

/**
 * Model time runs `scale`× faster than the wall clock (default 500: 60 s grace = 120 ms),
 * unless `clock` is given (a virtual clock: see test/support/virtualClock.ts).
 */
export async function harness(opts: {
  clock?: Clock; scale?: number; epoch?: number; timing?: Partial<ProvisionTiming>; delays?: Partial<FakeDelays>;
  storage?: FakeCloudStorage; root?: string; provider?: Partial<FakeProviderOptions>;
} = {}): Promise<Harness> {
  const root = opts.root ?? fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-prov-'));
  const store = await StateStore.openWorkspace(root);
  const clock = opts.clock ?? scaledClock(opts.scale ?? 500, opts.epoch);
  const cloud = new FakeProvider({ clock, storage: opts.storage ?? memoryStorage(emptyState(opts.delays)), ...opts.provider });
  const progress: string[] = [];
  // Bounds generous in real time too (20 min of cloud time = 2.4 s at scale 500): a loaded
  // machine must not turn "slow" into "unconfirmed" in tests that expect a confirmation.
  const timing = { confirmTimeoutMs: 20 * 60_000, ...opts.timing };
  const env = makeEnv({ store, clock, timing, progress: (s) => progress.push(s), log: () => undefined }, cloud);
  return { root, store, cloud, clock, env, progress, dispose: () => store.close() };
}

export const noBootstrap: Bootstrap = async () => ({ workdir: '/tmp' });

/** Live instances (the cloud's truth, visible or not) whose uid no row owns. */
export async function leaks(h: { store: StateStore; cloud: FakeProvider }): Promise<string[]> {
  const uids = new Set((await h.store.read((db) => listClusters(db))).map((c) => c.uid));
  return h.cloud.truth().filter((i) => isLiveStatus(i.status) && !uids.has(i.tags[TAG_UID])).map((i) => `${i.id} (${i.tags['skydeck-cluster']}, ${i.status})`);
}

/**
 * Rows that claim more than the cloud holds without saying so: UP needs its nodes running,
 * STOPPED needs live instances, none running. INIT and flagged rows claim nothing.
 */
export async function falseClaims(h: { store: StateStore; cloud: FakeProvider }): Promise<string[]> {
  const rows: ClusterRecord[] = await h.store.read((db) => listClusters(db));
  const truth = h.cloud.truth();
  const out: string[] = [];
  for (const r of rows) {
    if (r.flags || r.status === 'INIT') continue;
    const mine = truth.filter((i) => i.tags[TAG_UID] === r.uid && isLiveStatus(i.status));
    if (r.status === 'UP' && mine.filter((i) => i.status === 'running').length < r.num_nodes) out.push(`${r.name} UP but ${mine.map((i) => i.status).join(',') || 'no instances'}`);
    if (r.status === 'STOPPED' && (mine.length === 0 || mine.some((i) => i.status === 'running' || i.status === 'pending'))) out.push(`${r.name} STOPPED but ${mine.map((i) => i.status).join(',') || 'no instances'}`);
  }
  return out;
}
