// The real provision loop (src/core/provision) driving the Azure provider over the fake:
// failover to the next region on AllocationFailed with the failed attempt's resource group
// proven empty first, then down with proof and the group gone. Bootstrap is a no-op.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StateStore, getCluster } from '../../../src/core/state';
import { downWithProof, findLeaked, makeEnv, provision, realClock, terminateLeaked, type Bootstrap, type ProvisionEnv } from '../../../src/core/provision';
import { groupName } from '../../../src/core/clouds/azure';
import { startAzureBed, runRequest, type AzureBed } from './helpers';

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

  it('the sweep ends a leaked VM with proof that covers the NIC, public IP and disk it left (no cascade)', async () => {
    bed.fake.model.allocationFails.clear();
    const req = runRequest({ numNodes: 2 });
    const [first, second] = (await provider.runInstances(req)).created; // no row: leaked
    const g = `/subscriptions/${bed.fake.model.subscription}/resourceGroups/${groupName(req.uid)}`;
    const vm = bed.fake.model.get(`${g}/providers/Microsoft.Compute/virtualMachines/${first}`)!;
    vm.properties.networkProfile.networkInterfaces[0].properties.deleteOption = 'Detach';
    vm.properties.storageProfile.osDisk.deleteOption = 'Detach';
    const leaks = (await findLeaked([env], 'ws-test')).thisWorkspace.filter((l) => l.uid === req.uid);
    assert.deepEqual(leaks.map((l) => l.instance.id).sort(), [first, second].sort());
    const r = await terminateLeaked(env, leaks.find((l) => l.instance.id === first)!);
    assert.ok(r.confirmed, r.message);
    const parts = bed.fake.model.under(`${g}/providers/`).map((x) => x.name).filter((n: string) => n.startsWith(first));
    assert.deepEqual(parts, [], 'proven gone only once its NIC, IP and disk are gone too');
    assert.ok(bed.fake.model.get(`${g}/providers/Microsoft.Compute/virtualMachines/${second}`), 'the other VM was not touched');
    const r2 = await terminateLeaked(env, leaks.find((l) => l.instance.id === second)!);
    assert.ok(r2.confirmed, r2.message);
  });
});
