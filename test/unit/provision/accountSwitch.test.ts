// Issue 12.2 against the fake cloud (part of test:leaks): a user switching cloud account
// (profile, gcloud config, az account set) between launch and refresh/down/sweep.
import assert from 'node:assert/strict';
import { getCluster, putCluster, type ClusterRecord } from '../../../src/core/state';
import { downWithProof, findLeaked, FLAGS, provision, refreshOne } from '../../../src/core/provision';
import { leakVerdict } from '../../../src/core/ops/leaksSummary';
import { harness, leaks, noBootstrap, type Harness } from '../../support/fakeCloud/harness';
import { endScenario } from './leakStats';
import { assertNoLeaks, events, launch, row } from './helpers';

describe('provision: cloud account switched between launch and refresh (issue 12.2)', () => {
  let h: Harness;
  afterEach(async function () {
    await endScenario(this.currentTest, h);
    h = undefined as unknown as Harness;
  });

  const rows = async () => (await h.store.read((db) => db.exec('SELECT count(*) FROM clusters')[0].values[0][0])) as number;

  it('issue 12.2: switch account between launch and refresh → 0 rows deleted, 0 leaks; down and the sweep say unknown', async () => {
    h = await harness();
    assert.ok((await launch(h, 'c1')).ok);
    assert.ok((await launch(h, 'c2')).ok);
    assert.equal((await row(h, 'c1'))?.account, 'acct-1', 'the intent records the account');
    h.cloud.switchAccount('acct-2');
    await h.clock.sleep(61_000); // past the launch grace window: an empty answer would delete

    for (const name of ['c1', 'c2']) {
      const r = await refreshOne(h.env, (await row(h, name))!);
      assert.equal(r.action, 'error', `${name}: ${r.action} ${r.message}`);
      assert.match(r.message!, /unknown — credentials point at fake account acct-2, the cluster lives in acct-1/);
    }
    assert.equal(await rows(), 2, 'no row deleted');

    const d = await downWithProof(h.env, (await row(h, 'c1'))!);
    assert.equal(d.deleted, false);
    assert.equal(d.confirmed, false);
    assert.match(d.reason!, /credentials point at fake account acct-2/);
    assert.equal((await row(h, 'c1'))?.flags, FLAGS.terminationUnconfirmed);
    assert.equal(h.cloud.truth().filter((i) => i.status === 'running').length, 2, 'nothing was terminated in the wrong account, nothing stopped billing unseen');

    const sweep = await findLeaked([h.env], 'ws');
    assert.deepEqual(sweep.swept.map((s) => s.account), ['acct-2']);
    assert.deepEqual(sweep.errors.map((e) => [e.account, e.kind]), [['acct-1', 'auth']]);
    assert.notEqual(leakVerdict(sweep.thisWorkspace.length, sweep), 'none');
    assert.match(leakVerdict(sweep.thisWorkspace.length, sweep), /UNKNOWN in fake account acct-1/);
    assert.equal(await rows(), 2);
    await assertNoLeaks(h);

    // Back in the right account, everything works again.
    h.cloud.switchAccount('acct-1');
    assert.equal((await refreshOne(h.env, (await row(h, 'c2'))!)).action, 'unchanged');
    const again = await downWithProof(h.env, (await row(h, 'c1'))!);
    assert.ok(again.confirmed && again.deleted);
    assert.equal((await findLeaked([h.env], 'ws')).errors.length, 0);
    await assertNoLeaks(h);
  });

  it('issue 12.2: a row from before accounts were recorded adopts the current account only where its instances are', async () => {
    h = await harness();
    assert.ok((await launch(h, 'old')).ok);
    // As an older Skydeck wrote it: no account.
    await h.store.write((db) => putCluster(db, { ...(getRowSync(db, 'old')), account: null }));
    h.cloud.switchAccount('acct-2');
    await h.clock.sleep(61_000);
    const r = await refreshOne(h.env, (await row(h, 'old'))!);
    assert.equal(r.action, 'error');
    assert.match(r.message!, /recorded before Skydeck kept its fake account, and credentials point at acct-2, where none of its instances is listed/);
    const d = await downWithProof(h.env, (await row(h, 'old'))!);
    assert.equal(d.deleted, false, 'down of an unplaced legacy row deletes nothing');
    assert.equal((await row(h, 'old'))?.account, null);

    h.cloud.switchAccount('acct-1');
    const back = await downWithProof(h.env, (await row(h, 'old'))!);
    assert.ok(back.confirmed && back.deleted, back.reason);
    assert.equal(await row(h, 'old'), undefined);
    assert.deepEqual((await events(h, 'old')).filter((k) => k === 'account-adopted' || k === 'down'), ['account-adopted', 'down'], 'adopted (instances found), then proven gone');
    await assertNoLeaks(h);
  });

  it('issue 12.2: a legacy row found in the current account records it', async () => {
    h = await harness();
    assert.ok((await launch(h, 'old')).ok);
    await h.store.write((db) => putCluster(db, { ...(getRowSync(db, 'old')), account: null }));
    const r = await refreshOne(h.env, (await row(h, 'old'))!);
    assert.notEqual(r.action, 'error', r.message);
    assert.equal((await row(h, 'old'))?.account, 'acct-1');
    assert.ok((await events(h, 'old')).includes('account-adopted'));
  });

  it('issue 12.2: a launch whose account cannot be determined creates nothing and keeps no row', async () => {
    h = await harness();
    h.cloud.inject({ op: 'identity', at: 'before', effect: 'auth', times: -1 });
    const res = await provision(h.env, { name: 'c1', numNodes: 1, placements: [{ cloud: 'fake', region: 'r1', zone: 'r1a', useSpot: false }], bootstrap: noBootstrap });
    assert.equal(res.ok, false);
    assert.match(res.error!, /cannot tell which fake account the credentials point at/);
    assert.equal(await row(h, 'c1'), undefined);
    assert.deepEqual(h.cloud.truth(), []);
  });
});

function getRowSync(db: Parameters<typeof putCluster>[0], name: string): ClusterRecord {
  return getCluster(db, name)!;
}
