// A down of an interrupted launch whose instances the cloud does not list yet (EC2 listings
// can lag past the launch grace window): the row stays until a listing shows them, so they
// never run with no row owning them. Scenarios counted by npm run test:leaks. Virtual clock.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { thisCreator, type ClusterRecord } from '../../../src/core/state';
import { staticProviders, TAG_UID } from '../../../src/core/clouds/provider';
import { downWithProof, findLeaked, FLAGS, providerHandle, refreshOne, terminateLeaked } from '../../../src/core/provision';
import { saveRow } from '../../../src/core/provision/rows';
import { Connections, down, type OpsContext } from '../../../src/core/ops';
import { harness, type Harness } from '../../support/fakeCloud/harness';
import { virtualClock } from '../../support/virtualClock';
import { endScenario } from './leakStats';
import { assertNoLeaks, launch, row, zone } from './helpers';

const MIN = 60_000;
const vharness = () => harness({ clock: virtualClock(), timing: { confirmTimeoutMs: 2 * MIN } });
const statusOf = (h: Harness, id: string) => h.cloud.truth().find((i) => i.id === id)?.status;

/** A launch killed right after its run call was answered: intent, then the ids; instances listed only after `lateMs`. */
async function crashedLaunch(h: Harness, lateMs: number, scope?: 'query'): Promise<{ row: ClusterRecord; id: string }> {
  h.cloud.inject({ op: 'runInstances', at: 'before', effect: 'late', lateMs, times: 1, ...(scope ? { scope } : {}) });
  const now = h.clock.now();
  const uid = randomUUID();
  const creator = thisCreator();
  const base: ClusterRecord = {
    name: 'c1', uid, provider: 'fake', region: 'r1', zone: 'r1a', status: 'INIT', resources: null, num_nodes: 1,
    head_address: null, ssh_user: null, ssh_port: null, ssh_key_path: null, handle: null, launched_at: now, updated_at: now,
    last_error: null, autostop_minutes: null, autostop_down: 0, flags: null,
    created_by_user: creator.user, created_by_machine: creator.machine, account: 'acct-1',
  };
  const intent = (await saveRow(h.env, base, { handlePatch: { lastRunAt: now, runInFlight: true } }, undefined, true))!;
  const { created } = await h.cloud.runInstances({ uid, clusterName: 'c1', workspaceId: 'w', numNodes: 1, placement: zone('r1a'), tags: { [TAG_UID]: uid, 'skydeck-cluster': 'c1', 'skydeck-workspace': 'w' } });
  const crashed = (await saveRow(h.env, intent, { handlePatch: { instanceIds: created, runInFlight: false, runAnsweredAt: now } }))!;
  return { row: crashed, id: created[0] };
}

function opsOn(h: Harness): OpsContext {
  return {
    store: h.store, workspaceRoot: h.root, sshPools: () => ({ pools: [], errors: [] }),
    connections: new Connections({ knownHostsFile: path.join(h.root, 'known_hosts') }),
    progress: () => undefined, log: () => undefined, warn: () => undefined, user: 'tester',
    providers: staticProviders(h.cloud), clock: h.clock, timing: h.env.timing,
  };
}

describe('provision: down of a launch whose instances are not listed yet', () => {
  let h: Harness;
  afterEach(async function () {
    await endScenario(this.currentTest, h);
    h = undefined as unknown as Harness;
  });

  it('keeps the row flagged past the grace window, naming the ids; a later down terminates them with proof', async () => {
    h = await vharness();
    const { row: crashed, id } = await crashedLaunch(h, 10 * MIN);
    await h.clock.sleep(61_000);
    const first = await downWithProof(h.env, crashed);
    assert.equal(first.deleted, false, 'an instance the run call named is not gone because no listing shows it');
    assert.deepEqual(first.proof.unlisted, [id]);
    const kept = (await row(h, 'c1'))!;
    assert.equal(kept.flags, FLAGS.terminationUnconfirmed);
    assert.match(kept.last_error!, new RegExp(`instance\\(s\\) ${id} were created .*no listing .*run down again later, or "down --purge"`));
    assert.equal(statusOf(h, id), 'running', 'it runs, invisible, and the row still owns it');
    await assertNoLeaks(h);
    // Refresh agrees: the row stays.
    assert.notEqual((await refreshOne(h.env, kept)).action, 'removed');
    await h.clock.sleep(10 * MIN);
    const second = await downWithProof(h.env, (await row(h, 'c1'))!);
    assert.ok(second.deleted, second.reason);
    assert.ok(['terminating', 'terminated'].includes(statusOf(h, id)!), statusOf(h, id));
    await assertNoLeaks(h);
  });

  it('an id the cloud knows by id though its listing lags: the terminate answer is the proof, and the row goes', async () => {
    h = await vharness();
    const { row: crashed, id } = await crashedLaunch(h, 10 * MIN, 'query');
    await h.clock.sleep(61_000);
    assert.deepEqual(await h.cloud.queryInstances({ uid: crashed.uid }), [], 'the cluster query does not list it');
    const d = await downWithProof(h.env, crashed);
    assert.ok(d.deleted, d.reason);
    assert.ok(['terminating', 'terminated'].includes(statusOf(h, id)!), statusOf(h, id));
    await assertNoLeaks(h);
  });

  it('down --purge forgets such a row knowingly, naming the id; the sweep ends it once listed', async () => {
    h = await vharness();
    const { id } = await crashedLaunch(h, 10 * MIN);
    await h.clock.sleep(61_000);
    const ctx = opsOn(h);
    try {
      await assert.rejects(down(ctx, 'c1'), /could not confirm .*no listing .*run "skydeck down c1" again to retry, or add --purge/);
      const purged = await down(ctx, 'c1', { purge: true });
      assert.equal(purged.cleaned, false);
      assert.match(purged.notes.join('\n'), new RegExp(`--purge: forgot c1 without proof .*${id}`));
    } finally {
      await ctx.connections.closeAll();
    }
    assert.equal(await row(h, 'c1'), undefined);
    await h.clock.sleep(10 * MIN);
    const found = await findLeaked([h.env], 'w');
    assert.deepEqual(found.thisWorkspace.map((l) => l.instance.id), [id]);
    assert.ok((await terminateLeaked(h.env, found.thisWorkspace[0])).confirmed);
    await assertNoLeaks(h);
  });

  it('an id never listed holds the row only until namedListingLagMs after the run answer (a create that failed unseen)', async () => {
    h = await vharness();
    const { row: crashed, id } = await crashedLaunch(h, 24 * 60 * MIN);
    // The cloud ends it before any listing shows it (a failed create): never live in a listing.
    h.cloud.cloudActs('terminate', { ids: [id] }, 30_000);
    await h.clock.sleep(61_000);
    assert.equal((await downWithProof(h.env, crashed)).deleted, false);
    await h.clock.sleep(h.env.timing.namedListingLagMs);
    const later = await downWithProof(h.env, (await row(h, 'c1'))!);
    assert.ok(later.deleted, later.reason);
    await assertNoLeaks(h);
  });

  it('an id a listing once showed is not held when it vanishes from listings later (as deleted GCP/Azure VMs do)', async () => {
    h = await vharness();
    const { id } = await crashedLaunch(h, 2 * MIN);
    await h.clock.sleep(3 * MIN);
    // The terminate is accepted and does nothing: the down ends unconfirmed, having listed the id.
    h.cloud.inject({ op: 'terminateInstances', at: 'before', effect: 'noop', times: -1 });
    const first = await downWithProof(h.env, (await row(h, 'c1'))!);
    assert.equal(first.deleted, false);
    assert.deepEqual(first.proof.pending.map((i) => i.id), [id]);
    assert.deepEqual(providerHandle((await row(h, 'c1'))!).seenIds, [id]);
    // Ended outside Skydeck, then gone from every listing.
    h.cloud.cloudActs('terminate', { ids: [id] });
    await h.clock.sleep(MIN);
    const vanished = { ...h.env, provider: new Proxy(h.cloud, {
      get: (t, k) => {
        const v = Reflect.get(t, k, t);
        if (k === 'queryInstances') return async () => [];
        return typeof v === 'function' ? v.bind(t) : v;
      },
    }) };
    const second = await downWithProof(vanished, (await row(h, 'c1'))!);
    assert.ok(second.deleted, second.reason);
    await assertNoLeaks(h);
  });

  it('a launched cluster records its ids as seen, and its down is as before', async () => {
    h = await vharness();
    assert.ok((await launch(h, 'c1')).ok);
    const up = (await row(h, 'c1'))!;
    const ph = providerHandle(up);
    assert.deepEqual(ph.seenIds, ph.instanceIds);
    const d = await downWithProof(h.env, up);
    assert.ok(d.deleted, d.reason);
    assert.equal(d.proof.unlisted, undefined);
    await assertNoLeaks(h);
  });
});
