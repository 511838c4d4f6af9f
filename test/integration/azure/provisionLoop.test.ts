// The real provision loop (src/core/provision) driving the Azure provider over the fake:
// failover to the next region on AllocationFailed with the failed attempt's resource group
// proven empty first, then down with proof and the group gone. Bootstrap is a no-op.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StateStore, getCluster } from '../../../src/core/state';
import { downWithProof, makeEnv, provision, realClock, type Bootstrap, type ProvisionEnv } from '../../../src/core/provision';
import { startAzureBed, type AzureBed } from './helpers';

const noBootstrap: Bootstrap = async () => ({ workdir: '/tmp' });

describe('azure provider under the provision loop', function () {
  this.timeout(30_000);
  let bed: AzureBed;
  let store: StateStore;
  let env: ProvisionEnv;
  let provider: ReturnType<AzureBed['provider']>;

  before(async function () {
    bed = await startAzureBed(this);
    store = await StateStore.openWorkspace(fs.mkdtempSync(path.join(bed.dir, 'ws-')));
    provider = bed.provider();
    env = makeEnv({
      store, clock: realClock, progress: () => undefined, log: () => undefined,
      timing: { launchGraceMs: 2000, pollMs: 50, runningTimeoutMs: 5000, confirmTimeoutMs: 3000, reissueAfterMs: 1000, transientRetries: 2, backoffMs: 50 },
    }, provider);
  });
  after(async () => {
    store?.close();
    await bed?.close();
  });

  it('fails over from a region without capacity to the next, and down leaves no resource group', async () => {
    bed.fake.model.allocationFails.add('eastus');
    const res = await provision(env, {
      name: 'fo', numNodes: 2, bootstrap: noBootstrap, ports: [{ from: 8080, to: 8080 }],
      placements: [
        { cloud: 'azure', region: 'eastus', instanceType: 'Standard_D2s_v5', useSpot: false },
        { cloud: 'azure', region: 'westus2', instanceType: 'Standard_D2s_v5', useSpot: false },
      ],
    });
    assert.ok(res.ok, res.error);
    assert.deepEqual(res.attempts.map((a) => [a.placement.region, a.outcome, a.kind ?? '', a.cleanup]), [
      ['eastus', 'failed', 'capacity', 'confirmed'], ['westus2', 'up', '', 'not-needed'],
    ]);
    const row = res.row!;
    assert.match(row.head_address ?? '', /^198\.51\.100\./);
    const live = await provider.queryInstances({ uid: row.uid });
    assert.equal(live.length, 2);
    assert.ok(live.every((i) => i.region === 'westus2' && i.status === 'running'), 'only the second attempt\'s VMs exist');

    const down = await downWithProof(env, row);
    assert.ok(down.confirmed && down.deleted, down.reason);
    assert.equal(await store.read((db) => getCluster(db, 'fo')), undefined);
    await new Promise((r) => setTimeout(r, 200)); // the group delete finishes after its VMs are gone
    assert.equal(await provider.groupExists(row.uid), false);
    assert.deepEqual((await provider.listTagged()).instances, []);
  });
});
