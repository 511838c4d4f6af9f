// Launch, query, cluster info, stop (deallocate), start (resume), ports, down (resource group
// gone), spot and the leak listing through the real ARM clients against the local https fake.
import * as assert from 'node:assert/strict';
import { TAG_CLUSTER, TAG_UID, TAG_WORKSPACE } from '../../../src/core/clouds/provider';
import { groupName } from '../../../src/core/clouds/azure';
import { startAzureBed, runRequest, REGION, type AzureBed } from './helpers';

describe('azure provider: lifecycle on the ARM fake', function () {
  this.timeout(30_000);
  let bed: AzureBed;
  before(async function () {
    bed = await startAzureBed(this);
  });
  after(async () => bed?.close());

  const vmPuts = () => bed.fake.model.calls.filter((c) => c.method === 'PUT' && /virtualMachines\/[^/]+$/.test(c.path));
  const resource = (uid: string, tail: string) => bed.fake.model.get(`/subscriptions/${bed.fake.model.subscription}/resourceGroups/${groupName(uid)}/providers/${tail}`);

  it('launches tagged VMs in their own resource group, with the ssh key, and reports the head', async () => {
    const p = bed.provider();
    const req = runRequest({ numNodes: 2, clusterName: 'My.Run', resources: { diskSize: 64 } });
    const before = vmPuts().length;
    const run = await p.runInstances(req);
    assert.equal(run.created.length, 2);
    const ref = { uid: req.uid, region: REGION };
    const q = await p.queryInstances(ref);
    assert.deepEqual(q.map((i) => i.id).sort(), [...run.created].sort());
    for (const i of q) {
      assert.deepEqual([i.tags[TAG_UID], i.tags[TAG_CLUSTER], i.tags[TAG_WORKSPACE]], [req.uid, 'My.Run', 'ws-test']);
      assert.equal(i.status, 'running', 'create waits for the operation; the VM runs');
      assert.equal(i.region, REGION);
      assert.equal(i.instanceType, 'Standard_D2s_v5');
    }
    const body = vmPuts()[before].body!.properties;
    assert.equal(body.osProfile.adminUsername, 'skydeck');
    assert.equal(body.osProfile.linuxConfiguration.disablePasswordAuthentication, true);
    assert.match(body.osProfile.linuxConfiguration.ssh.publicKeys[0].keyData, /^ssh-ed25519 /);
    assert.equal(body.storageProfile.osDisk.diskSizeGB, 64);
    assert.equal(body.storageProfile.osDisk.deleteOption, 'Delete');
    assert.equal(body.priority, 'Regular');
    const group = bed.fake.model.get(`/subscriptions/${bed.fake.model.subscription}/resourceGroups/${groupName(req.uid)}`)!;
    assert.equal(group.tags[TAG_UID], req.uid, 'the resource group carries the tags too');
    const nsg = resource(req.uid, 'Microsoft.Network/networkSecurityGroups/skydeck-nsg')!;
    assert.deepEqual(nsg.properties.securityRules.map((r: any) => r.properties.destinationPortRange), ['22']);

    const info = await p.clusterInfo(ref);
    assert.equal(info.head.id, run.created[0]);
    assert.equal(info.workers.length, 1);
    assert.equal(info.sshUser, 'skydeck');
    assert.match(info.head.address, /^198\.51\.100\.\d+$/); // never connected to
    await p.terminateInstances(ref);
    await p.waitInstances(ref, 'terminated', 5000);
  });

  it('stops by deallocating (never powerOff), resumes by starting, opens ports, and down deletes the group', async () => {
    const p = bed.provider();
    const req = runRequest();
    const ref = { uid: req.uid, region: REGION };
    const [id] = (await p.runInstances(req)).created;
    await p.stopInstances(ref);
    // Deallocating, or already deallocated on a slow machine (the fake moves on a wall clock): never running.
    assert.ok(['stopping', 'stopped'].includes((await p.queryInstances(ref))[0]?.status ?? 'none'));
    await p.waitInstances(ref, 'stopped', 5000);
    const actions = bed.fake.model.calls.filter((c) => c.method === 'POST').map((c) => c.path.split('/').pop());
    assert.ok(actions.includes('deallocate') && !actions.includes('powerOff'));
    assert.equal(resource(req.uid, `Microsoft.Compute/virtualMachines/${id}`)!._power, 'deallocated');

    assert.deepEqual(await p.runInstances(req), { created: [], resumed: [id] }, 'a stopped cluster is started, not re-created');
    await p.waitInstances(ref, 'running', 5000);
    await p.stopInstances(ref);
    await p.waitInstances(ref, 'stopped', 5000);
    await p.startInstances(ref);
    await p.waitInstances(ref, 'running', 5000);

    await p.openPorts(ref, [{ from: 8888, to: 8888 }, { from: 9000, to: 9010 }]);
    await p.openPorts(ref, [{ from: 8888, to: 8888 }]);
    const rules = resource(req.uid, 'Microsoft.Network/networkSecurityGroups/skydeck-nsg')!.properties.securityRules;
    assert.deepEqual(rules.map((r: any) => r.properties.destinationPortRange).sort(), ['22', '8888', '9000-9010']);

    assert.equal(await p.groupExists(req.uid), true);
    await p.terminateInstances(ref);
    assert.ok((await p.queryInstances(ref)).every((i) => i.status === 'terminating'), 'VMs of a deleting group are terminating');
    await p.waitInstances(ref, 'terminated', 5000);
    assert.equal(await p.groupExists(req.uid), false, 'the resource group is gone');
    assert.deepEqual(bed.fake.model.under(`/subscriptions/${bed.fake.model.subscription}/resourceGroups/${groupName(req.uid)}`), [], 'nothing orphaned');
  });

  it('spot VMs: Spot priority, Deallocate eviction, no price cap; an evicted VM reads stopped', async () => {
    const p = bed.provider();
    const req = runRequest({ useSpot: true });
    const [id] = (await p.runInstances(req)).created;
    const vm = resource(req.uid, `Microsoft.Compute/virtualMachines/${id}`)!;
    assert.deepEqual([vm.properties.priority, vm.properties.evictionPolicy, vm.properties.billingProfile.maxPrice], ['Spot', 'Deallocate', -1]);
    bed.fake.model.evict(groupName(req.uid), id);
    await p.waitInstances({ uid: req.uid }, 'stopped', 5000);
    await p.terminateInstances({ uid: req.uid });
  });

  it('deleting one VM takes its NIC and public IP along', async () => {
    const p = bed.provider();
    const req = runRequest({ numNodes: 2 });
    const [, second] = (await p.runInstances(req)).created;
    await p.terminateInstances({ uid: req.uid }, [second]);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual((await p.queryInstances({ uid: req.uid })).length, 1);
    assert.equal(resource(req.uid, `Microsoft.Network/networkInterfaces/${second}-nic`), undefined);
    assert.equal(resource(req.uid, `Microsoft.Network/publicIPAddresses/${second}-ip`), undefined);
    await p.terminateInstances({ uid: req.uid });
  });

  it('lists every Skydeck-tagged VM of the subscription, and only those', async () => {
    const p = bed.provider();
    const r1 = runRequest();
    const r2 = runRequest({ region: 'westeurope' });
    await p.runInstances(r1);
    await p.runInstances(r2);
    const sub = bed.fake.model.subscription;
    bed.fake.model.put({ id: `/subscriptions/${sub}/resourceGroups/other`, name: 'other', type: 'Microsoft.Resources/resourceGroups', location: REGION, tags: {}, properties: { provisioningState: 'Succeeded' } });
    bed.fake.model.put({ id: `/subscriptions/${sub}/resourceGroups/other/providers/Microsoft.Compute/virtualMachines/theirs`, name: 'theirs', type: 'Microsoft.Compute/virtualMachines', location: REGION, tags: { team: 'x' }, properties: { provisioningState: 'Succeeded', hardwareProfile: { vmSize: 'Standard_B1s' } }, _power: 'running' });
    const tagged = (await p.listTagged()).instances;
    const uids = new Set(tagged.map((i) => i.tags[TAG_UID]));
    assert.ok(uids.has(r1.uid) && uids.has(r2.uid));
    assert.ok(!tagged.some((i) => i.id === 'theirs'));
    assert.equal(tagged.find((i) => i.tags[TAG_UID] === r2.uid)?.region, 'westeurope');
    // Just created: starting or running, depending on how far the fake's clock has moved.
    assert.ok(tagged.every((i) => i.status === 'running' || i.status === 'pending'), tagged.map((i) => i.status).join(','));
    for (const r of [r1, r2]) await p.terminateInstances({ uid: r.uid });
  });

  it('a Skydeck group left without VMs (IP and NIC billing) is listed, and ending it by that id deletes the group', async () => {
    const p = bed.provider();
    bed.fake.model.restricted.add(`${REGION}/Standard_D4s_v5`);
    const req = runRequest({ instanceType: 'Standard_D4s_v5' });
    await assert.rejects(p.runInstances(req), /SkuNotAvailable/);
    bed.fake.model.restricted.clear();
    assert.ok(resource(req.uid, `Microsoft.Network/virtualNetworks/skydeck-vnet`), 'the network was made before the VM was refused');
    const stray = (await p.listTagged()).instances.find((i) => i.tags[TAG_UID] === req.uid);
    assert.deepEqual([stray?.id, stray?.status], [groupName(req.uid), 'stopped']);
    await p.terminateInstances({ uid: req.uid }, [stray!.id]);
    await new Promise((r) => setTimeout(r, 250));
    assert.equal(await p.groupExists(req.uid), false);
  });
});
