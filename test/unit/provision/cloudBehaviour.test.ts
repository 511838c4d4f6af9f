// What real clouds do that a kind fake would not (issue 14.6): listings that disagree, the
import { randomUUID } from 'node:crypto';
import { thisCreator } from '../../../src/core/state';
// cloud changing instances on its own, partial creates, quota/config errors, EC2 refusing to
// stop a pending instance, instances listed only after the grace window. On a virtual clock.
import assert from 'node:assert/strict';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { downWithProof, findLeaked, reconcileOne, refreshOne, resumeCluster, stopWithProof, terminateLeaked } from '../../../src/core/provision';
import { saveRow } from '../../../src/core/provision/rows';
import { harness, noBootstrap, type Harness } from '../../support/fakeCloud/harness';
import { virtualClock } from '../../support/virtualClock';
import { endScenario } from './leakStats';
import { assertNoLeaks, launch, row, zone } from './helpers';

const vharness = (more: Parameters<typeof harness>[0] = {}) => harness({ clock: virtualClock(), ...more });

/** An instance no row owns, as a crashed launch of another process leaves it. */
function stray(h: Harness, uid: string) {
  return h.cloud.runInstances({
    uid, clusterName: `stray-${uid}`, workspaceId: 'w', numNodes: 1, placement: { cloud: 'fake', region: 'r1', zone: 'r1a', useSpot: false },
    tags: { 'skydeck-cluster': `stray-${uid}`, [TAG_UID]: uid, 'skydeck-workspace': 'w' },
  });
}

const statusOf = (h: Harness, id: string) => h.cloud.truth().find((i) => i.id === id)?.status;
const ending = (s?: string) => s === 'terminating' || s === 'terminated';

describe('provision: cloud behaviour a kind fake hides', () => {
  let h: Harness;
  afterEach(async function () {
    await endScenario(this.currentTest, h);
    h = undefined as unknown as Harness;
  });

  it('issue 14.6: a stray the sweep lists but the cluster query does not is terminated with proof, not called gone', async () => {
    h = await vharness();
    h.cloud.inject(
      { op: 'runInstances', at: 'before', effect: 'late', scope: 'query', lateMs: 30 * 60_000, times: 1 },
      { op: 'terminateInstances', at: 'before', effect: 'noop', times: 1 },
    );
    const { created: [id] } = await stray(h, 'u-stray');
    await h.clock.sleep(5_000);
    assert.deepEqual(await h.cloud.queryInstances({ uid: 'u-stray' }), [], 'the cluster query does not list it');
    const found = await findLeaked([h.env], 'w');
    assert.deepEqual(found.thisWorkspace.map((l) => l.instance.id), [id]);
    const t = await terminateLeaked(h.env, found.thisWorkspace[0]);
    assert.ok(t.confirmed, t.message);
    assert.ok(ending(statusOf(h, id)), `confirmed while the instance is ${statusOf(h, id)}`);
  });

  it('issue 14.6: a stray the sweep does not list yet is found by a later sweep; a cluster the sweep cannot see is torn down by its uid', async () => {
    h = await vharness();
    h.cloud.inject({ op: 'runInstances', at: 'before', effect: 'late', scope: 'sweep', lateMs: 5 * 60_000, times: 2 });
    assert.ok((await launch(h, 'c1')).ok);
    const { created: [id] } = await stray(h, 'u-stray');
    const early = await findLeaked([h.env], 'w');
    assert.deepEqual([early.thisWorkspace, early.errors], [[], []], 'not listed yet, so not reported');
    const r = (await row(h, 'c1'))!;
    const down = await downWithProof(h.env, r);
    assert.ok(down.deleted);
    assert.ok(h.cloud.truth().filter((i) => i.tags[TAG_UID] === r.uid).every((i) => ending(i.status)));
    await h.clock.sleep(5 * 60_000);
    const later = await findLeaked([h.env], 'w');
    assert.deepEqual(later.thisWorkspace.map((l) => l.instance.id), [id]);
    assert.ok((await terminateLeaked(h.env, later.thisWorkspace[0])).confirmed);
    assert.ok(ending(statusOf(h, id)));
  });

  it('issue 14.6: spot preemption while starting fails the attempt; its instances are proven gone before the next zone', async () => {
    h = await vharness();
    h.cloud.cloudActs('preempt', { zone: 'r1a' }, 500);
    const res = await launch(h, 'c1', { numNodes: 2, placements: [{ ...zone('r1a'), useSpot: true }, { ...zone('r1b'), useSpot: true }] });
    assert.ok(res.ok, res.error);
    assert.deepEqual(res.attempts.map((a) => [a.placement.zone, a.outcome, a.cleanup]), [['r1a', 'failed', 'confirmed'], ['r1b', 'up', 'not-needed']]);
    assert.match(res.attempts[0].reason!, /preempted/);
    assert.ok(h.cloud.truth().filter((i) => i.zone === 'r1a').every((i) => ending(i.status)));
    await assertNoLeaks(h);
  });

  it('issue 14.6: a preempted worker of an UP cluster: refresh says so, down still proves every instance gone', async () => {
    h = await vharness();
    assert.ok((await launch(h, 'c1', { numNodes: 2 })).ok);
    const r = (await row(h, 'c1'))!;
    const worker = JSON.parse(r.handle!).instanceIds.find((id: string) => id !== JSON.parse(r.handle!).headId);
    h.cloud.cloudActs('preempt', { ids: [worker] });
    await h.clock.sleep(1_000);
    assert.equal((await refreshOne(h.env, r)).action, 'updated');
    assert.match((await row(h, 'c1'))!.last_error!, /1 of 2 instance\(s\) running/);
    await assertNoLeaks(h);
    assert.ok((await downWithProof(h.env, (await row(h, 'c1'))!)).deleted);
    assert.ok(h.cloud.truth().every((i) => ending(i.status)));
  });

  it('issue 14.6: the cloud stops a cluster, then restarts it by itself: refresh follows both, no false claim', async () => {
    h = await vharness();
    assert.ok((await launch(h, 'c1')).ok);
    const r = (await row(h, 'c1'))!;
    h.cloud.cloudActs('stop', { uid: r.uid });
    await h.clock.sleep(5_000);
    await refreshOne(h.env, r);
    assert.equal((await row(h, 'c1'))?.status, 'STOPPED');
    await assertNoLeaks(h);
    h.cloud.cloudActs('restart', { uid: r.uid });
    await h.clock.sleep(1_000);
    await refreshOne(h.env, (await row(h, 'c1'))!);
    const after = (await row(h, 'c1'))!;
    assert.equal(after.status, 'INIT');
    assert.match(after.last_error!, /started outside Skydeck/);
    await assertNoLeaks(h);
    assert.ok((await downWithProof(h.env, after)).deleted);
    await assertNoLeaks(h);
  });

  it('issue 14.6: the cloud terminates a STOPPED cluster: refresh removes the row only after the grace window and the proof', async () => {
    h = await vharness();
    assert.ok((await launch(h, 'c1')).ok);
    assert.ok((await stopWithProof(h.env, (await row(h, 'c1'))!)).confirmed);
    const r = (await row(h, 'c1'))!;
    h.cloud.cloudActs('terminate', { uid: r.uid }, 10_000);
    await h.clock.sleep(15_000);
    assert.deepEqual(h.cloud.truth().map((i) => i.status), ['terminated']);
    await h.clock.sleep(60_000);
    assert.equal((await refreshOne(h.env, r)).action, 'removed');
    await assertNoLeaks(h);
  });

  it('issue 14.6: a multi-node create that fails half-way is retried without duplicates, or cleaned up before the next zone', async () => {
    h = await vharness();
    // Each call in r1a creates one more node, then the connection drops.
    h.cloud.inject(
      { op: 'runInstances', at: 'before', effect: 'partial', nodes: 1, times: 2 },
      { op: 'runInstances', at: 'after', effect: 'throw', times: 2 },
    );
    const ok = await launch(h, 'c1', { numNodes: 3 });
    assert.ok(ok.ok, ok.error);
    assert.equal(h.cloud.truth().filter((i) => i.status === 'running').length, 3, 'two partial calls and one full: three nodes, no duplicates');
    await assertNoLeaks(h);

    h.cloud.inject(
      { op: 'runInstances', at: 'before', effect: 'partial', nodes: 1, zone: 'r1a', times: -1 },
      { op: 'runInstances', at: 'after', effect: 'throw', zone: 'r1a', times: -1 },
    );
    const res = await launch(h, 'c2', { numNodes: 3, placements: [zone('r1a'), zone('r1b')] });
    assert.ok(res.ok, res.error);
    assert.deepEqual(res.attempts.map((a) => [a.outcome, a.cleanup]), [['failed', 'confirmed'], ['up', 'not-needed']]);
    const c2 = (await row(h, 'c2'))!.uid;
    assert.ok(h.cloud.truth().filter((i) => i.tags[TAG_UID] === c2 && i.zone === 'r1a').every((i) => ending(i.status)));
    assert.equal(h.cloud.truth().filter((i) => i.tags[TAG_UID] === c2 && i.zone === 'r1b' && i.status === 'running').length, 3);
    await assertNoLeaks(h);
  });

  it('issue 14.6: a quota error moves to the next zone; a config error stops at once with nothing created', async () => {
    h = await vharness();
    h.cloud.inject({ op: 'runInstances', at: 'before', effect: 'quota', zone: 'r1a', times: -1 });
    const q = await launch(h, 'c1', { placements: [zone('r1a'), zone('r1b')] });
    assert.ok(q.ok, q.error);
    assert.deepEqual(q.attempts.map((a) => [a.kind ?? a.outcome, a.cleanup]), [['quota', 'confirmed'], ['up', 'not-needed']]);

    h.cloud.inject({ op: 'runInstances', at: 'before', effect: 'config', times: -1 });
    const c = await launch(h, 'c2', { placements: [zone('r1b'), zone('r1c')] });
    assert.equal(c.ok, false);
    assert.deepEqual(c.attempts.map((a) => a.kind), ['config'], 'another zone will not fix a config error');
    assert.match(c.error!, /config: .*image.*\(check image_id\)/);
    assert.equal(await row(h, 'c2'), undefined);
    assert.equal(h.cloud.truth().length, 1, 'only c1 exists');
    await assertNoLeaks(h);
  });

  it('issue 14.6: EC2 refuses to stop a pending instance; the stop is asked again and proven once it runs', async () => {
    h = await vharness();
    h.cloud.refuseStopWhilePending();
    assert.ok((await launch(h, 'c1')).ok);
    assert.ok((await stopWithProof(h.env, (await row(h, 'c1'))!)).confirmed);
    const r = (await row(h, 'c1'))!;
    await h.clock.sleep(5_000);
    h.cloud.cloudActs('restart', { uid: r.uid });
    await h.clock.sleep(100);
    assert.deepEqual(h.cloud.truth().map((i) => i.status), ['pending']);
    await assert.rejects(h.cloud.stopInstances({ uid: r.uid }), /IncorrectInstanceState/);
    const stop = await stopWithProof(h.env, r);
    assert.ok(stop.confirmed, stop.reason);
    assert.equal((await row(h, 'c1'))?.status, 'STOPPED');
    assert.ok(['stopping', 'stopped'].includes(h.cloud.truth()[0].status), h.cloud.truth()[0].status);
    await assertNoLeaks(h);
    const again = await resumeCluster(h.env, (await row(h, 'c1'))!, { bootstrap: noBootstrap });
    assert.ok(again.ok, again.error);
  });

  it('issue 14.6: an instance listed only 90 s after its create survives a refresh past the 60 s grace window', async () => {
    h = await vharness();
    h.cloud.inject({ op: 'runInstances', at: 'before', effect: 'late', lateMs: 90_000, times: 1 });
    const launching = launch(h, 'c1');
    await h.clock.sleep(65_000);
    const r = (await row(h, 'c1'))!;
    assert.equal(r.status, 'INIT');
    const refreshed = await refreshOne(h.env, r);
    assert.notEqual(refreshed.action, 'removed', refreshed.message);
    const res = await launching;
    assert.ok(res.ok, res.error);
    assert.equal((await row(h, 'c1'))?.status, 'UP');
    await assertNoLeaks(h);
  });

  it('issue 14.6: after a crash, reconcile past the grace window keeps a row whose instance is not listed yet', async () => {
    h = await vharness();
    h.cloud.inject({ op: 'runInstances', at: 'before', effect: 'late', lateMs: 3 * 60_000, times: 1 });
    // A launch killed right after its run call was answered: intent, then the ids.
    const now = h.clock.now();
    const uid = randomUUID();
    const creator = thisCreator();
    const base = {
      name: 'c1', uid, provider: 'fake', region: 'r1', zone: 'r1a', status: 'INIT' as const, resources: null, num_nodes: 1,
      head_address: null, ssh_user: null, ssh_port: null, ssh_key_path: null, handle: null, launched_at: now, updated_at: now,
      last_error: null, autostop_minutes: null, autostop_down: 0, flags: null,
      created_by_user: creator.user, created_by_machine: creator.machine, account: 'acct-1',
    };
    const intent = (await saveRow(h.env, base, { handlePatch: { lastRunAt: now, runInFlight: true } }, undefined, true))!;
    const { created } = await h.cloud.runInstances({ uid, clusterName: 'c1', workspaceId: 'w', numNodes: 1, placement: zone('r1a'), tags: { [TAG_UID]: uid, 'skydeck-cluster': 'c1' } });
    const crashed = (await saveRow(h.env, intent, { handlePatch: { instanceIds: created, runInFlight: false, runAnsweredAt: now } }))!;
    await h.clock.sleep(61_000);
    const first = await reconcileOne(h.env, crashed);
    assert.notEqual(first.action, 'removed', first.message);
    assert.match((await row(h, 'c1'))!.last_error!, /no listing of the cloud shows them yet/);
    await assertNoLeaks(h);
    await h.clock.sleep(3 * 60_000);
    const second = await reconcileOne(h.env, (await row(h, 'c1'))!);
    assert.equal(second.action, 'adopted');
    assert.ok((await downWithProof(h.env, (await row(h, 'c1'))!)).deleted);
    await assertNoLeaks(h);
  });
});
