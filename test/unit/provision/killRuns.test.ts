// Kill -9 of a child running the provision core at random points, then a fresh process
// reconciles from disk: zero leaks, and the rows suffice to tear everything down.
// KILL_RUNS sets the count (test:leaks runs 200; the normal suite a handful).
import assert from 'node:assert/strict';
import { killRuns } from '../../support/fakeCloud/killRuns';
import { recordStat } from './leakStats';

const RUNS = Number(process.env.KILL_RUNS ?? 4);

describe('provision: kill -9 at random points', function () {
  this.timeout(900_000);
  it(`leaves nothing unowned after ${RUNS} kills and a fresh reconcile`, async () => {
    const r = await killRuns(RUNS, { seed: Number(process.env.KILL_SEED ?? 42) });
    recordStat({ kind: 'kills', runs: r.runs, killed: r.killed, leaks: r.leaks, liveAfterDown: r.afterDown, unconfirmed: r.unconfirmed });
    assert.deepEqual(r.failures, []);
    assert.equal(r.leaks, 0);
    assert.equal(r.runs, RUNS);
  });
});
