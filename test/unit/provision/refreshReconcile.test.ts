// Refresh (grace window, head gone, definitely gone), crash recovery and cancellation.
import { virtualClock } from '../../support/virtualClock';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { FLAGS, reconcileOne, refreshOne, downWithProof, findLeaked, terminateLeaked } from '../../../src/core/provision';
import { saveRow } from '../../../src/core/provision/rows';
import { thisCreator } from '../../../src/core/state';
import { harness, noBootstrap, type Harness } from '../../support/fakeCloud/harness';
import { endScenario } from './leakStats';
import { assertNoLeaks, events, launch, row } from './helpers';

describe('provision: refresh, reconcile, cancel, sweep', () => {
  let h: Harness;
  afterEach(async function () {
    await endScenario(this.currentTest, h);
    h = undefined as unknown as Harness;
  });

  it('a young INIT row with no instances is queried again, not deleted; an old one is removed and logged', async () => {
    h = await harness({ clock: virtualClock() });
    h.cloud.inject({ op: 'runInstances', at: 'before', effect: 'capacity', times: -1 });
    // A row as a crashed launch leaves it: intent written, nothing created.
    const res = launch(h, 'c1');
    await res;
    assert.equal(await row(h, 'c1'), undefined, 'a failed launch with nothing created removes its row after proof');
    const r0 = await seedInit(h, 'c2');
    const started = h.clock.now();
    const out = await refreshOne(h.env, r0);
    assert.equal(out.action, 'removed');
    assert.ok(h.clock.now() - started >= 59_000, 'waited out the 60 s grace window before deciding');
    assert.ok((await h.store.read((db) => db.exec("SELECT count(*) FROM events WHERE kind = 'refresh-removed'")[0].values[0][0])) === 1);
  });

  it('a cluster that ended by itself (autodown) is removed, and its network rules are cleaned by a terminate call', async () => {
    h = await harness({ clock: virtualClock() });
    assert.ok((await launch(h, 'c1')).ok);
    const r = (await row(h, 'c1'))!;
    await h.cloud.terminateInstances({ uid: r.uid, region: r.region ?? undefined });
    await h.cloud.waitInstances({ uid: r.uid, region: r.region ?? undefined }, 'terminated', 120_000);
    const terminate = h.cloud.terminateInstances.bind(h.cloud);
    const calls: string[] = [];
    h.cloud.terminateInstances = async (ref, ids) => {
      calls.push(ref.uid);
      return terminate(ref, ids);
    };
    await h.clock.sleep(61_000); // past the launch grace window
    const out = await refreshOne(h.env, r);
    assert.equal(out.action, 'removed', JSON.stringify(out));
    assert.deepEqual(calls, [r.uid]);
    assert.equal(await row(h, 'c1'), undefined);
  });

  it('an API error is never read as "no instances"', async () => {
    h = await harness();
    assert.ok((await launch(h, 'c1')).ok);
    h.cloud.inject({ op: 'queryInstances', at: 'before', effect: 'transient', times: -1 });
    const out = await refreshOne(h.env, (await row(h, 'c1'))!);
    assert.equal(out.action, 'error');
    assert.equal((await row(h, 'c1'))?.status, 'UP');
  });

  it('an UP cluster whose head is gone becomes INIT with the reason', async () => {
    h = await harness();
    assert.ok((await launch(h, 'c1', { numNodes: 2 })).ok);
    const r = (await row(h, 'c1'))!;
    const headId = JSON.parse(r.handle!).headId as string;
    await h.cloud.terminateInstances({ uid: r.uid }, [headId]);
    await h.clock.sleep(2_000);
    const out = await refreshOne(h.env, r);
    assert.equal(out.action, 'updated');
    const after = (await row(h, 'c1'))!;
    assert.equal(after.status, 'INIT');
    assert.match(after.last_error!, new RegExp(`head instance ${headId} is terminat`));
    await assertNoLeaks(h);
  });

  it('reconcile finishes an interrupted teardown and adopts an interrupted launch', async () => {
    h = await harness();
    assert.ok((await launch(h, 'c1')).ok);
    const r1 = (await saveRow(h.env, (await row(h, 'c1'))!, { flags: FLAGS.terminating }))!;
    assert.equal((await reconcileOne(h.env, r1)).action, 'finished-down');
    assert.equal(await row(h, 'c1'), undefined);

    const r2 = await seedInit(h, 'c2');
    await h.cloud.runInstances({ uid: r2.uid, clusterName: 'c2', workspaceId: 'w', numNodes: 1, placement: { cloud: 'fake', region: 'r1', zone: 'r1a', useSpot: false }, tags: { [TAG_UID]: r2.uid } });
    const out = await reconcileOne(h.env, r2);
    assert.equal(out.action, 'adopted');
    assert.match((await row(h, 'c2'))!.last_error!, /launch was interrupted/);
    await assertNoLeaks(h);
  });

  it('cancelling a launch terminates what it created, with proof', async () => {
    h = await harness({ clock: virtualClock() });
    const ac = new AbortController();
    const res = launch(h, 'c1', { signal: ac.signal, bootstrap: async (_r, _i, signal) => {
      ac.abort();
      await new Promise((r) => setTimeout(r, 5));
      return signal?.aborted ? { workdir: '' } : noBootstrap(_r, _i);
    } });
    const out = await res;
    assert.equal(out.ok, false);
    assert.deepEqual(out.attempts.map((a) => [a.outcome, a.cleanup]), [['cancelled', 'confirmed']]);
    assert.equal(await row(h, 'c1'), undefined);
    assert.ok(h.cloud.truth().every((i) => i.status === 'terminating' || i.status === 'terminated'));
  });

  it('the sweep lists unowned tagged instances apart by workspace, and terminates one with proof', async () => {
    h = await harness();
    assert.ok((await launch(h, 'owned')).ok);
    const mk = (uid: string, ws: string) => h.cloud.runInstances({
      uid, clusterName: `stray-${ws}`, workspaceId: ws, numNodes: 1, placement: { cloud: 'fake', region: 'r1', zone: 'r1a', useSpot: false },
      tags: { 'skydeck-cluster': `stray-${ws}`, [TAG_UID]: uid, 'skydeck-workspace': ws },
    });
    const wsId = await h.store.read((db) => db.exec("SELECT value FROM meta WHERE key='workspace_id'")[0].values[0][0] as string);
    await mk('u-mine', wsId);
    await mk('u-other', 'elsewhere');
    await h.clock.sleep(10_000);
    const s = await findLeaked([h.env], wsId);
    assert.deepEqual(s.thisWorkspace.map((l) => l.cluster), [`stray-${wsId}`]);
    assert.deepEqual(s.otherWorkspaces.map((l) => l.cluster), ['stray-elsewhere']);
    assert.ok(s.thisWorkspace[0].ageMs >= 10_000 && s.thisWorkspace[0].costSoFar! > 0);
    const t = await terminateLeaked(h.env, s.thisWorkspace[0]);
    assert.ok(t.confirmed, t.message);
    const after = await findLeaked([h.env], wsId);
    assert.equal(after.thisWorkspace.length, 0);
    assert.ok((await terminateLeaked(h.env, after.otherWorkspaces[0])).confirmed);
    assert.ok((await events(h, 'owned')).includes('up'));
  });

  it('down after an UP cluster confirms, then deletes; a missing row is not resurrected by down', async () => {
    h = await harness();
    assert.ok((await launch(h, 'c1')).ok);
    const r = (await row(h, 'c1'))!;
    assert.ok((await downWithProof(h.env, r)).deleted);
    const again = await downWithProof(h.env, r);
    assert.ok(again.confirmed && !again.deleted);
    assert.equal(await row(h, 'c1'), undefined);
  });
});

/** An INIT row written as the loop's intent would be, with nothing created. */
async function seedInit(h: Harness, name: string) {
  const now = h.clock.now();
  const creator = thisCreator();
  const base = {
    name, uid: randomUUID(), provider: 'fake', region: 'r1', zone: 'r1a', status: 'INIT' as const, resources: null, num_nodes: 1,
    head_address: null, ssh_user: null, ssh_port: null, ssh_key_path: null, handle: null, launched_at: now, updated_at: now,
    last_error: null, autostop_minutes: null, autostop_down: 0, flags: null,
    created_by_user: creator.user, created_by_machine: creator.machine, account: 'acct-1',
  };
  return (await saveRow(h.env, base, { handlePatch: { lastRunAt: now, runInFlight: true } }, undefined, true))!;
}
