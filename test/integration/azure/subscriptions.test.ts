// Issue 12.2 on the ARM fake, which keeps each subscription's state apart as Azure does: a
// cluster records its subscription; after "az account set" to another one, refresh, down and
// the sweep still ask the cluster's own subscription, and only ResourceGroupNotFound for the
// cluster's own group in that subscription means "gone" — any other 404 is an error.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StateStore, getCluster } from '../../../src/core/state';
import { downWithProof, findLeaked, makeEnv, provision, refreshOne, realClock, type Bootstrap, type ProvisionEnv } from '../../../src/core/provision';
import { ArmError } from '../../support/fakes/azureFake/bodies';
import { startAzureBed, type AzureBed } from './helpers';

const noBootstrap: Bootstrap = async () => ({ workdir: '/tmp' });
const OTHER = '11111111-2222-3333-4444-555555555555';
const timing = { launchGraceMs: 500, pollMs: 50, runningTimeoutMs: 5000, confirmTimeoutMs: 3000, reissueAfterMs: 1000, transientRetries: 1, backoffMs: 50 };

describe('azure: cluster subscriptions (issue 12.2)', function () {
  this.timeout(60_000);
  let bed: AzureBed;
  let store: StateStore;
  let HOME: string;

  before(async function () {
    bed = await startAzureBed(this);
    HOME = bed.fake.model.subscription;
    bed.fake.addSubscription(OTHER);
    store = await StateStore.openWorkspace(fs.mkdtempSync(path.join(bed.dir, 'ws-')));
  });
  after(async () => {
    store?.close();
    await bed?.close();
  });

  const envIn = (subscriptionId: string): ProvisionEnv =>
    makeEnv({ store, clock: realClock, timing, progress: () => undefined, log: () => undefined }, bed.provider({ subscriptionId }));
  const row = (name: string) => store.read((db) => getCluster(db, name));
  const grace = () => new Promise((r) => setTimeout(r, timing.launchGraceMs + 100));

  it('issue 12.2: after "az account set" to another subscription, refresh and down ask the cluster\'s own; a missing subscription or a stray 404 is an error, never gone', async () => {
    const res = await provision(envIn(HOME), { name: 'z1', numNodes: 1, bootstrap: noBootstrap, placements: [{ cloud: 'azure', region: 'eastus', instanceType: 'Standard_D2s_v5', useSpot: false }] });
    assert.ok(res.ok, res.error);
    assert.equal(res.row!.account, HOME);

    const away = envIn(OTHER);
    await grace();
    const r = await refreshOne(away, (await row('z1'))!);
    assert.equal(r.action, 'unchanged', r.message);
    assert.deepEqual(r.instances!.map((i) => i.status), ['running'], 'listed in the cluster\'s subscription, not the configured one');

    // The subscription cannot be found (access removed): 404 SubscriptionNotFound is unknown.
    const model = bed.fake.subscriptions.get(HOME)!;
    bed.fake.subscriptions.delete(HOME);
    try {
      const lost = await refreshOne(away, (await row('z1'))!);
      assert.equal(lost.action, 'error');
      assert.match(lost.message!, /SubscriptionNotFound/);
      const d = await downWithProof(away, (await row('z1'))!);
      assert.equal(d.deleted, false);
      assert.ok(await row('z1'), 'row kept');
      const sweep = await findLeaked([away], 'ws');
      assert.deepEqual(sweep.swept.map((s) => s.account), [OTHER]);
      assert.deepEqual(sweep.errors.map((e) => [e.cloud, e.account]), [['azure', HOME]]);
    } finally {
      bed.fake.subscriptions.set(HOME, model);
    }

    // A 404 that is not "this group does not exist" (a wrong route, a proxy) is not gone either.
    bed.fake.failNext('GET', /virtualMachines$/, new ArmError(404, 'NotFound', 'The requested resource was not found.'));
    const stray = await refreshOne(away, (await row('z1'))!);
    assert.equal(stray.action, 'error', stray.message);
    assert.ok(await row('z1'));

    // Down from the other subscription's configuration ends it in its own, with proof.
    const down = await downWithProof(away, (await row('z1'))!);
    assert.ok(down.confirmed && down.deleted, down.reason);
    assert.ok(model.vms().every((v) => v.properties.provisioningState === 'Deleting'), 'its group is being deleted in its own subscription');
  });

  it('issue 12.2: the sweep lists the configured subscription and every one a cluster records', async () => {
    const res = await provision(envIn(HOME), { name: 'z2', numNodes: 1, bootstrap: noBootstrap, placements: [{ cloud: 'azure', region: 'eastus', instanceType: 'Standard_D2s_v5', useSpot: false }] });
    assert.ok(res.ok, res.error);
    const sweep = await findLeaked([envIn(OTHER)], 'ws');
    assert.deepEqual(sweep.swept.map((s) => s.account).sort(), [HOME, OTHER].sort());
    assert.deepEqual(sweep.errors, []);
    assert.ok((await downWithProof(envIn(OTHER), (await row('z2'))!)).deleted);
  });
});
