// fast-check over random fault schedules interleaving launch, refresh, stop, start, down and
// reconcile, with the user switching cloud account in between (issue 12.2). After every step: every live tagged instance is owned by a row, and no row
// claims instances that are gone without saying so. PROVISION_SCHEDULES sets the number of
// schedules (test:leaks runs 500; the normal suite a few dozen).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import fc from 'fast-check';
import { getCluster } from '../../../src/core/state';
import { downWithProof, provision, reconcileOne, refreshOne, resumeCluster, stopWithProof } from '../../../src/core/provision';
import { falseClaims, harness, leaks, noBootstrap, type Harness } from '../../support/fakeCloud/harness';
import { faultArb, stepArb, type Step } from '../../support/fakeCloud/schedules';
import type { FaultRule } from '../../support/fakeCloud/model';
import { recordStat } from './leakStats';

const SCHEDULES = Number(process.env.PROVISION_SCHEDULES ?? 40);
const propertyStats = { schedules: 0, steps: 0, leaks: 0 };

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

async function checkSchedule(faults: FaultRule[], steps: Step[]): Promise<void> {
  const h = await harness({ scale: 2_000, timing: { confirmTimeoutMs: 90_000, reissueAfterMs: 10_000, runningTimeoutMs: 120_000 } });
  try {
    h.cloud.inject(...faults.map((f) => ({ ...f })));
    for (const s of steps) {
      await runStep(h, s);
      propertyStats.steps++;
      const leaked = await leaks(h);
      propertyStats.leaks += leaked.length;
      assert.deepEqual(leaked, [], `leaked after ${s.kind} ${s.name}`);
      assert.deepEqual(await falseClaims(h), [], `false claim after ${s.kind} ${s.name}`);
    }
  } finally {
    h.dispose();
    fs.rmSync(h.root, { recursive: true, force: true });
  }
  propertyStats.schedules++;
}

describe('provision: property over random fault schedules', function () {
  this.timeout(600_000);
  it(`holds the leak invariants over ${SCHEDULES} schedules`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(faultArb, { maxLength: 4 }), fc.array(stepArb, { minLength: 3, maxLength: 9 }), checkSchedule),
      { numRuns: SCHEDULES, seed: process.env.PROVISION_SEED ? Number(process.env.PROVISION_SEED) : undefined },
    ).finally(() => recordStat({ kind: 'property', ...propertyStats }));
  });
});
