// The process the kill -9 runs kill: it runs the provision core against a fake cloud kept in
// a JSON file. Mode "work" runs a seeded sequence of launches/stops/starts/downs, reports
// each operation and each cloud call on fd 3 (so the parent knows a kill landed after a
// cloud call, and where), and may kill itself (SIGKILL) at a chosen cloud call. Mode "serve" is the fresh process afterwards (one
// process that never ran the killed core, serving one request per run, each from disk only):
// it reconciles every row, counts leaks, then downs everything and counts what is still live.
import * as fs from 'node:fs';
import { StateStore, getCluster, listClusters } from '../../../src/core/state';
import { TAG_UID } from '../../../src/core/clouds/provider';
import {
  downWithProof, makeEnv, needsReconcile, provision, reconcileOne, resumeCluster, scaledClock, stopWithProof, type ProvisionEnv,
} from '../../../src/core/provision';
import { prng } from '../prng';
import { FakeProvider } from './fakeProvider';
import { fileStorage } from './storage';
import { REPORT_FD } from './killProtocol';
import { emptyState, isLiveStatus, type FaultRule } from './model';

export interface ChildConfig {
  mode: 'work' | 'serve';
  root: string;
  cloudFile: string;
  epoch: number;
  scale: number;
  seed: number;
  /**
   * Kill at this cloud call number: "self" exactly "before" or "after" it; "parent" is the
   * parent's SIGKILL sent when it reads the call's report, landing anywhere after it.
   */
  killAt?: { n: number; at: 'before' | 'after'; by?: 'self' | 'parent' };
}

function report(cfg: ChildConfig, line: string): void {
  if (cfg.mode !== 'work') return;
  const buf = Buffer.from(line + '\n');
  for (let off = 0; off < buf.length;) {
    try {
      off += fs.writeSync(REPORT_FD, buf, off);
    } catch (e) {
      // A full non-blocking pipe: the parent reads continuously, so try again.
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
    }
  }
}

const noBootstrap = async () => ({ workdir: '/tmp' });

async function open(cfg: ChildConfig): Promise<{ env: ProvisionEnv; cloud: FakeProvider; store: StateStore }> {
  const store = await StateStore.openWorkspace(cfg.root);
  const clock = scaledClock(cfg.scale, cfg.epoch);
  const cloud = new FakeProvider({
    clock, storage: fileStorage(cfg.cloudFile, emptyState()),
    onCall: (op, at, n) => {
      report(cfg, `call ${n} ${op} ${at}`);
      const k = cfg.killAt;
      if (k && (k.by ?? 'self') === 'self' && k.n === n && k.at === at) process.kill(process.pid, 'SIGKILL');
    },
  });
  // The reconciler gets a long bound: at this clock scale a minute is a few real ms, and a
  // loaded machine must not turn "slow" into "unconfirmed".
  const confirmTimeoutMs = cfg.mode === 'serve' ? 3_600_000 : 60_000;
  const env = makeEnv({ store, clock, timing: { confirmTimeoutMs, reissueAfterMs: 10_000 }, progress: () => undefined, log: () => undefined }, cloud);
  return { env, cloud, store };
}

const FAULTS: FaultRule[] = [
  { op: 'runInstances', at: 'before', effect: 'late', lateMs: 5_000, times: 1 },
  { op: 'runInstances', at: 'after', effect: 'throw', zone: 'r1a', times: -1 },
  { op: 'runInstances', at: 'before', effect: 'capacity', zone: 'r1b', times: 1 },
  { op: 'terminateInstances', at: 'before', effect: 'noop', times: 1 },
  { op: 'stopInstances', at: 'before', effect: 'noop', times: 1 },
  { op: 'queryInstances', at: 'before', effect: 'transient', times: 2 },
];

async function work(cfg: ChildConfig): Promise<void> {
  const { env, cloud } = await open(cfg);
  const rnd = prng(cfg.seed);
  cloud.inject(...FAULTS.filter(() => rnd() < 0.35));
  for (let i = 0; i < 3; i++) {
    const name = rnd() < 0.6 ? 'a' : 'b';
    const row = await env.store.read((db) => getCluster(db, name));
    const pick = rnd();
    const kind = !row ? 'launch' : pick < 0.35 ? 'down' : pick < 0.65 && row.status === 'UP' ? 'stop' : row.status !== 'UP' ? 'start' : 'none';
    report(cfg, `phase ${kind}`);
    if (!row) {
      await provision(env, { name, numNodes: rnd() < 0.7 ? 1 : 2, placements: [{ cloud: 'fake', region: 'r1', useSpot: false }], bootstrap: noBootstrap });
    } else if (pick < 0.35) await downWithProof(env, row);
    else if (pick < 0.65 && row.status === 'UP') await stopWithProof(env, row);
    else if (row.status !== 'UP') await resumeCluster(env, row, { bootstrap: noBootstrap });
  }
}

export interface ReconcileReport {
  leaks: string[];
  afterDown: string[];
  unconfirmed: number;
  rows: number;
}

async function reconcileAll(cfg: ChildConfig): Promise<ReconcileReport> {
  const { env, cloud, store } = await open({ ...cfg, killAt: undefined });
  const rows = await store.read((db) => listClusters(db));
  await Promise.all(rows.filter(needsReconcile).map((r) => reconcileOne(env, r)));
  const owned = new Set((await store.read((db) => listClusters(db))).map((c) => c.uid));
  const leaks = cloud.truth().filter((i) => isLiveStatus(i.status) && !owned.has(i.tags[TAG_UID])).map((i) => i.id);
  // Then the rows must be enough to clean everything up.
  let unconfirmed = 0;
  for (const r of await store.read((db) => listClusters(db))) if (!(await downWithProof(env, r)).confirmed) unconfirmed++;
  const afterDown = cloud.truth().filter((i) => isLiveStatus(i.status)).map((i) => i.id);
  store.close();
  return { leaks, afterDown, unconfirmed, rows: rows.length };
}

/** JSON lines in (a ChildConfig per run), JSON lines out (a ReconcileReport or {error}). */
function serve(): void {
  let buf = '';
  let chain = Promise.resolve();
  process.stdin.on('data', (d) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      chain = chain.then(() => reconcileAll(JSON.parse(line) as ChildConfig).then(
        (r) => void process.stdout.write(JSON.stringify(r) + '\n'),
        (e) => void process.stdout.write(JSON.stringify({ error: (e as Error).stack }) + '\n'),
      ));
    }
  });
  process.stdin.on('end', () => void chain.then(() => process.exit(0)));
}

if (process.argv[2] === 'serve') serve();
else {
  work(JSON.parse(process.argv[2]) as ChildConfig).then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`${(e as Error).stack}\n`);
      process.exit(70);
    },
  );
}
