// fast-check over random fault schedules interleaving launch, refresh, stop, start, down and
// reconcile, with the user switching cloud account in between (issue 12.2), on a virtual clock (time moves only when every party waits), so a seed names
// one exact run. After every step: every live tagged instance is owned by a row, and no row
// claims instances that are gone without saying so. PROVISION_SCHEDULES sets the number of
// schedules (test:leaks runs 500; the normal suite a few dozen); PROVISION_SEED (and
// PROVISION_PATH, printed on failure) replay a run.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { faultArb, stepArb, type Step } from '../../support/fakeCloud/schedules';
import type { FaultRule } from '../../support/fakeCloud/model';
import { runSchedule, type ScheduleStats } from '../../support/fakeCloud/runSchedule';
import { propertySeed } from '../../support/fakeCloud/seed';
import { recordStat } from './leakStats';

const SCHEDULES = Number(process.env.PROVISION_SCHEDULES ?? 40);

const scheduleArb = fc.tuple(fc.array(faultArb, { maxLength: 4 }), fc.array(stepArb, { minLength: 3, maxLength: 9 }));

/** Runs the property; a failure names the seed, the path and the shrunk schedule. */
async function assertSchedules(
  check: (faults: FaultRule[], steps: Step[]) => Promise<unknown>,
  opts: { numRuns: number; seed: number; path?: string },
): Promise<void> {
  const out = await fc.check(fc.asyncProperty(scheduleArb, ([f, s]) => check(f, s).then(() => undefined)), {
    numRuns: opts.numRuns, seed: opts.seed, ...(opts.path ? { path: opts.path } : {}),
  });
  if (!out.failed) return;
  const [faults, steps] = out.counterexample?.[0] ?? [[], []];
  const cause = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
  throw new Error([
    `provision property failed after ${out.numRuns} schedule(s): ${cause}`,
    `replay: PROVISION_SEED=${opts.seed} PROVISION_PATH=${out.counterexamplePath ?? ''}`,
    `faults: ${JSON.stringify(faults)}`,
    `steps: ${JSON.stringify(steps)}`,
  ].join('\n'));
}

// A schedule with everything that interleaves: faults on create and terminate, late
// instances, racing refreshes, waits, a stop/start and a down.
const FIXED_FAULTS: FaultRule[] = [
  { op: 'runInstances', at: 'before', effect: 'late', lateMs: 20_000, times: 1 },
  { op: 'runInstances', at: 'after', effect: 'throw', zone: 'r1a', times: 1 },
  { op: 'terminateInstances', at: 'before', effect: 'noop', times: 1 },
  { op: 'queryInstances', at: 'before', effect: 'slow', delayMs: 3_000, times: 2 },
];
const FIXED_STEPS: Step[] = [
  { kind: 'launch', name: 'a', nodes: 2, withRefresh: true, ms: 1_500 },
  { kind: 'launch', name: 'b', nodes: 1, withRefresh: true, ms: 61_000 },
  { kind: 'stop', name: 'a', nodes: 1, withRefresh: true, ms: 2_000 },
  { kind: 'wait', name: 'a', nodes: 1, withRefresh: false, ms: 30_000 },
  { kind: 'start', name: 'a', nodes: 1, withRefresh: true, ms: 500 },
  { kind: 'down', name: 'b', nodes: 1, withRefresh: true, ms: 1_000 },
  { kind: 'reconcile', name: 'a', nodes: 1, withRefresh: false, ms: 0 },
];

describe('provision: property over random fault schedules', function () {
  this.timeout(600_000);
  const stats: ScheduleStats = { schedules: 0, steps: 0, leaks: 0 };

  it(`holds the leak invariants over ${SCHEDULES} schedules`, async () => {
    const { seed, source } = propertySeed();
    console.log(`      provision property: seed ${seed} (${source})`);
    await assertSchedules((f, s) => runSchedule(f, s, stats), { numRuns: SCHEDULES, seed, path: process.env.PROVISION_PATH || undefined })
      .finally(() => recordStat({ kind: 'property', seed, ...stats }));
  });

  it('issue 14.4: one schedule run twice gives the same trace (virtual clock)', async () => {
    const first = await runSchedule(FIXED_FAULTS, FIXED_STEPS);
    const second = await runSchedule(FIXED_FAULTS, FIXED_STEPS);
    assert.ok(first.filter((l) => l.includes(' call ')).length > 20, 'the schedule made cloud calls');
    assert.ok(first.some((l) => l.includes('event a stopped')), first.join('\n'));
    assert.deepEqual(second, first);
  });

  it('issue 14.4: a failure prints its seed, replay path and schedule', async () => {
    const failing = async (_f: FaultRule[], s: Step[]) => assert.ok(!s.some((x) => x.kind === 'down'), 'a down step');
    await assert.rejects(assertSchedules(failing, { numRuns: 200, seed: 77 }), (e: Error) => {
      assert.match(e.message, /a down step/);
      assert.match(e.message, /replay: PROVISION_SEED=77 PROVISION_PATH=\d+(:\d+)*/);
      assert.match(e.message, /steps: \[.*"kind":"down"/);
      return true;
    });
  });

  it('issue 14.4: under CI the seed is fixed per commit; PROVISION_SEED wins', () => {
    const a = propertySeed({ CI: 'true', GITHUB_SHA: 'a'.repeat(40) });
    assert.deepEqual(propertySeed({ CI: 'true', GITHUB_SHA: 'a'.repeat(40) }), a);
    assert.notEqual(propertySeed({ CI: 'true', GITHUB_SHA: 'b'.repeat(40) }).seed, a.seed);
    assert.equal(propertySeed({ CI: 'true', PROVISION_SEED: '12' }).seed, 12);
    assert.throws(() => propertySeed({ PROVISION_SEED: 'x' }), /integer/);
  });
});
