// One scenario per leak SkyPilot met in production (issue 6), against the fake cloud.
import { virtualClock } from '../../support/virtualClock';
import assert from 'node:assert/strict';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { downWithProof, FLAGS, refreshOne, resumeCluster, stopWithProof } from '../../../src/core/provision';
import { harness, leaks, noBootstrap, type Harness } from '../../support/fakeCloud/harness';
import { endScenario } from './leakStats';
import { assertNoLeaks, events, launch, row, zone } from './helpers';

describe('provision: historical leaks', () => {
  let h: Harness;
  afterEach(async function () {
    await endScenario(this.currentTest, h);
    h = undefined as unknown as Harness;
  });

  it('an instance invisible for 1 s survives a concurrent refresh (the row is never deleted)', async () => {
    h = await harness({ clock: virtualClock() });
    h.cloud.inject({ op: 'runInstances', at: 'before', effect: 'late', lateMs: 1_000, times: 1 });
    const launching = launch(h, 'c1');
    let r = await row(h, 'c1');
    while (!r) r = await row(h, 'c1');
    // The row exists (intent first); the instance is not listed yet.
    const refreshed = await refreshOne(h.env, r);
    assert.notEqual(refreshed.action, 'removed');
    const res = await launching;
    assert.ok(res.ok, res.error);
    assert.equal((await row(h, 'c1'))?.status, 'UP');
    await assertNoLeaks(h);
  });

  it('a terminate that silently does nothing is re-issued; if it always does nothing the row stays flagged', async () => {
    h = await harness({ timing: { confirmTimeoutMs: 10 * 60_000 } });
    assert.ok((await launch(h, 'c1')).ok);
    h.cloud.inject({ op: 'terminateInstances', at: 'before', effect: 'noop', times: 1 });
    const once = await downWithProof(h.env, (await row(h, 'c1'))!);
    assert.ok(once.confirmed && once.deleted);
    await assertNoLeaks(h);

    assert.ok((await launch(h, 'c2')).ok);
    h.cloud.inject({ op: 'terminateInstances', at: 'before', effect: 'noop', times: -1 });
    const never = await downWithProof(h.env, (await row(h, 'c2'))!);
    assert.equal(never.confirmed, false);
    const kept = await row(h, 'c2');
    assert.equal(kept?.flags, FLAGS.terminationUnconfirmed);
    assert.match(kept!.last_error!, /termination unconfirmed/);
    await assertNoLeaks(h);
    h.cloud.storage.save({ ...h.cloud.storage.load(), faults: [] });
    const retry = await downWithProof(h.env, kept!);
    assert.ok(retry.confirmed && retry.deleted);
    await assertNoLeaks(h);
    assert.equal(h.cloud.truth().filter((i) => i.status === 'running').length, 0);
  });

  it('an exception after create (instance invisible, too) is cleaned up before the next zone', async () => {
    h = await harness({ clock: virtualClock() });
    h.cloud.inject(
      // Every try in r1a throws after creating (so retries give up); the instance is also late.
      { op: 'runInstances', at: 'after', effect: 'throw', zone: 'r1a', times: -1 },
      { op: 'runInstances', at: 'before', effect: 'late', lateMs: 2_000, times: 1 },
    );
    const res = await launch(h, 'c1', { placements: [zone('r1a'), zone('r1b')] });
    assert.ok(res.ok, res.error);
    assert.deepEqual(res.attempts.map((a) => [a.outcome, a.cleanup]), [['failed', 'confirmed'], ['up', 'not-needed']]);
    const first = h.cloud.truth().find((i) => i.zone === 'r1a')!;
    assert.ok(first.status === 'terminating' || first.status === 'terminated', first.status);
    assert.ok((await events(h, 'c1')).includes('attempt-failed'));
    await assertNoLeaks(h);
  });

  it('a slow create that fails: the grace window counts from the answer, not the request', async () => {
    h = await harness({ clock: virtualClock() });
    h.cloud.inject(
      // The first call creates 40 s after it was issued; the instance shows 50 s after that
      // (90 s after the request, 30 s past a grace window counted from the request); every
      // call in r1a fails, so the attempt's outcome is unknown.
      { op: 'runInstances', at: 'before', effect: 'slow', delayMs: 40_000, times: 1 },
      { op: 'runInstances', at: 'before', effect: 'late', lateMs: 50_000, times: 1 },
      { op: 'runInstances', at: 'after', effect: 'throw', zone: 'r1a', times: -1 },
    );
    // One placement, so the failed launch ends by removing its row: only after the proof.
    const res = await launch(h, 'c1', { placements: [zone('r1a')] });
    assert.equal(res.ok, false);
    assert.deepEqual(res.attempts.map((a) => [a.outcome, a.cleanup]), [['failed', 'confirmed']]);
    assert.equal(await row(h, 'c1'), undefined);
    assert.deepEqual(h.cloud.truth().map((i) => i.status === 'terminating' || i.status === 'terminated'), [true]);
    await assertNoLeaks(h);
  });

  it('capacity errors fail over across 3 zones, each attempt shown and cleaned up', async () => {
    h = await harness();
    h.cloud.inject(
      { op: 'runInstances', at: 'before', effect: 'capacity', zone: 'r1a', times: -1 },
      { op: 'runInstances', at: 'before', effect: 'capacity', zone: 'r1b', times: -1 },
    );
    const seen: string[] = [];
    const res = await launch(h, 'c1', { placements: [{ cloud: 'fake', region: 'r1', useSpot: false }], onAttempt: (a) => seen.push(`${a.placement.zone}:${a.outcome}`) });
    assert.ok(res.ok, res.error);
    assert.deepEqual(seen, ['r1a:failed', 'r1b:failed', 'r1c:up']);
    assert.equal((await row(h, 'c1'))?.zone, 'r1c');
    assert.ok(h.progress.some((p) => /r1a failed \(capacity/.test(p)), h.progress.join('\n'));

    h.cloud.inject({ op: 'runInstances', at: 'before', effect: 'capacity', zone: 'r1c', times: -1 });
    const all = await launch(h, 'c2', { placements: [{ cloud: 'fake', region: 'r1', useSpot: false }] });
    assert.equal(all.ok, false);
    assert.match(all.error!, /3 of 3 placement\(s\) tried[\s\S]*r1a: capacity[\s\S]*r1b: capacity[\s\S]*r1c: capacity/);
    assert.equal(await row(h, 'c2'), undefined, 'nothing was created, so the row goes');
    await assertNoLeaks(h);
  });

  it('restarting a STOPPED cluster that fails keeps its row and its stopped instances', async () => {
    h = await harness();
    assert.ok((await launch(h, 'c1')).ok);
    const stopped = await stopWithProof(h.env, (await row(h, 'c1'))!);
    assert.ok(stopped.confirmed);
    await h.clock.sleep(5_000);
    h.cloud.inject({ op: 'runInstances', at: 'before', effect: 'capacity', times: 1 });
    const failed = await resumeCluster(h.env, (await row(h, 'c1'))!, { bootstrap: noBootstrap });
    assert.equal(failed.ok, false);
    const r = await row(h, 'c1');
    assert.equal(r?.status, 'STOPPED');
    assert.match(r!.last_error!, /capacity/);
    const mine = h.cloud.truth().filter((i) => i.tags[TAG_UID] === r!.uid);
    assert.deepEqual(mine.map((i) => i.status), ['stopped']);
    await assertNoLeaks(h);
    const ok = await resumeCluster(h.env, r!, { bootstrap: noBootstrap });
    assert.ok(ok.ok, ok.error);
    assert.equal((await row(h, 'c1'))?.status, 'UP');
    assert.equal(h.cloud.truth().length, 1, 'the same instance was started, none created');
  });
});
