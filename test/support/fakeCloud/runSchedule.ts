// Runs one fault schedule (faults + steps) against a fresh workspace and fake cloud on a
// virtual clock, checking the leak invariants after every step, and returns its trace: every
// cloud call and every state event with its model time. Same schedule, same trace.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { getCluster } from '../../../src/core/state';
import { downWithProof, provision, reconcileOne, refreshOne, resumeCluster, stopWithProof } from '../../../src/core/provision';
import { virtualClock } from '../virtualClock';
import { falseClaims, harness, leaks, noBootstrap, type Harness } from './harness';
import { fastTmp } from './killRuns';
import type { FaultRule } from './model';
import type { Step } from './schedules';

export interface ScheduleStats {
  schedules: number;
  steps: number;
  leaks: number;
}

async function runStep(h: Harness, s: Step): Promise<void> {
  const cur = () => h.store.read((db) => getCluster(db, s.name));
  const op = async () => {
    const r = await cur();
    switch (s.kind) {
      case 'launch':
        if (!r) await provision(h.env, { name: s.name, numNodes: s.nodes, placements: [{ cloud: 'fake', region: 'r1', useSpot: false }], bootstrap: noBootstrap });
        else if (r.status !== 'UP') await resumeCluster(h.env, r, { bootstrap: noBootstrap });
        return;
      case 'stop': return r && r.status === 'UP' ? void (await stopWithProof(h.env, r)) : undefined;
      case 'start': return r && r.status === 'STOPPED' ? void (await resumeCluster(h.env, r, { bootstrap: noBootstrap })) : undefined;
      case 'down': return r ? void (await downWithProof(h.env, r)) : undefined;
      case 'refresh': return r ? void (await refreshOne(h.env, r)) : undefined;
      case 'reconcile': return r ? void (await reconcileOne(h.env, r)) : undefined;
      case 'wait': return h.clock.sleep(s.ms);
      case 'switch': return h.cloud.switchAccount(s.name === 'a' ? 'acct-1' : 'acct-2');
    }
  };
  // A refresh of the same cluster racing the step: the historical leak's shape.
  const racer = async () => {
    await h.clock.sleep(s.ms % 5_000);
    const r = await cur();
    if (r) await refreshOne(h.env, r);
  };
  await Promise.all(s.withRefresh ? [op(), racer()] : [op()]);
}

export async function runSchedule(faults: FaultRule[], steps: Step[], stats?: ScheduleStats): Promise<string[]> {
  const clock = virtualClock();
  const epoch = clock.now();
  const trace: string[] = [];
  // tmpfs when there is one: thousands of state writes, each with an fsync.
  const h = await harness({
    clock, root: fs.mkdtempSync(path.join(fastTmp(), 'skydeck-prop-')), timing: { confirmTimeoutMs: 90_000, reissueAfterMs: 10_000, runningTimeoutMs: 120_000 },
    provider: { onCall: (op, at, n) => void trace.push(`${clock.now() - epoch} call ${n} ${op} ${at}`) },
  });
  try {
    h.cloud.inject(...faults.map((f) => ({ ...f })));
    for (const s of steps) {
      await runStep(h, s);
      trace.push(`${clock.now() - epoch} step ${s.kind} ${s.name} done`);
      if (stats) stats.steps++;
      const leaked = await leaks(h);
      if (stats) stats.leaks += leaked.length;
      assert.deepEqual(leaked, [], `leaked after ${s.kind} ${s.name}`);
      assert.deepEqual(await falseClaims(h), [], `false claim after ${s.kind} ${s.name}`);
    }
    const events = await h.store.read((db) => db.exec('SELECT ts, cluster, kind, message FROM events ORDER BY id')[0]?.values ?? []);
    for (const [ts, cluster, kind, message] of events) trace.push(`${Number(ts) - epoch} event ${cluster} ${kind}: ${message}`);
    for (const i of h.cloud.truth()) trace.push(`end ${i.id} ${i.status} ${i.tags['skydeck-cluster']}`);
  } finally {
    h.dispose();
    fs.rmSync(h.root, { recursive: true, force: true });
  }
  if (stats) stats.schedules++;
  return normalizeUuids(trace);
}

/** Uids and the workspace id are random per run: name them by first appearance. */
function normalizeUuids(lines: string[]): string[] {
  const names = new Map<string, string>();
  const re = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
  return lines.map((l) => l.replace(re, (u) => {
    if (!names.has(u)) names.set(u, `uuid${names.size + 1}`);
    return names.get(u)!;
  }));
}
