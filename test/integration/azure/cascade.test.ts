// What a VM's delete takes along, as the Compute and Network specs (and the network RP's known
// behaviour) say: the NIC by the VM's NIC reference, the public IP by the NIC's reference to it
// (never by the IP's own deleteOption, which ARM ignores), the OS disk by its deleteOption. A
// single-VM terminate leaves none of them, and a part left behind keeps the proof from passing.
import * as assert from 'node:assert/strict';
import { groupName } from '../../../src/core/clouds/azure';
import { AzureClients } from '../../../src/core/clouds/azure/clients';
import { azureCode } from '../../../src/core/clouds/azure/errors';
import { startAzureBed, runRequest, type AzureBed } from './helpers';

describe('azure: what a VM delete takes along (deleteOption as the specs put it)', function () {
  this.timeout(30_000);
  let bed: AzureBed;
  before(async function () {
    bed = await startAzureBed(this);
  });
  after(async () => bed?.close());

  const sub = () => bed.fake.model.subscription;
  const part = (uid: string, tail: string) => bed.fake.model.get(`/subscriptions/${sub()}/resourceGroups/${groupName(uid)}/providers/${tail}`);
  const partsOf = (uid: string, vm: string) => ({
    nic: part(uid, `Microsoft.Network/networkInterfaces/${vm}-nic`),
    ip: part(uid, `Microsoft.Network/publicIPAddresses/${vm}-ip`),
    disk: part(uid, `Microsoft.Compute/disks/${vm}-osdisk`),
  });
  const until = async (what: string, ok: () => Promise<boolean> | boolean) => {
    for (let i = 0; i < 200; i++) {
      if (await ok()) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.fail(`never: ${what}`);
  };
  const code = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return `${(e as { statusCode?: number }).statusCode} ${azureCode(e).code}`;
    }
    return 'no error';
  };

  it('single-VM terminate leaves no public IP, NIC or OS disk of that VM, and the other VM keeps its own', async () => {
    const p = bed.provider();
    const req = runRequest({ numNodes: 2 });
    const [first, second] = (await p.runInstances(req)).created;
    const before = partsOf(req.uid, second);
    assert.ok(before.nic && before.ip && before.disk, 'a VM has its NIC, public IP and managed OS disk');
    assert.equal(before.disk.managedBy, part(req.uid, `Microsoft.Compute/virtualMachines/${second}`)!.id);
    // Where the provider puts each deleteOption, as read back from ARM.
    const vm = part(req.uid, `Microsoft.Compute/virtualMachines/${second}`)!.properties;
    assert.equal(vm.networkProfile.networkInterfaces[0].properties.deleteOption, 'Delete');
    assert.equal(vm.storageProfile.osDisk.deleteOption, 'Delete');
    assert.equal(before.nic.properties.ipConfigurations[0].properties.publicIPAddress.properties.deleteOption, 'Delete');

    await p.terminateInstances({ uid: req.uid }, [second]);
    await until('the VM is no longer listed', async () => !(await p.queryInstances({ uid: req.uid })).some((i) => i.id === second));
    assert.deepEqual(partsOf(req.uid, second), { nic: undefined, ip: undefined, disk: undefined });
    const kept = partsOf(req.uid, first);
    assert.ok(kept.nic && kept.ip && kept.disk, 'the other VM keeps its parts');
    assert.deepEqual((await p.queryInstances({ uid: req.uid })).map((i) => i.id), [first]);
    await p.terminateInstances({ uid: req.uid });
  });

  it('a part a gone VM left (no cascade) is reported billing, so the proof does not pass until a terminate removes it', async () => {
    const p = bed.provider();
    const req = runRequest({ numNodes: 2 });
    const [, second] = (await p.runInstances(req)).created;
    // As for a VM made without deleteOptions: its NIC reference and OS disk say Detach.
    const vm = part(req.uid, `Microsoft.Compute/virtualMachines/${second}`)!;
    vm.properties.networkProfile.networkInterfaces[0].properties.deleteOption = 'Detach';
    vm.properties.storageProfile.osDisk.deleteOption = 'Detach';
    await p.terminateInstances({ uid: req.uid }, [second]);
    await until('the VM itself is gone', () => !part(req.uid, `Microsoft.Compute/virtualMachines/${second}`));
    const left = (await p.queryInstances({ uid: req.uid })).find((i) => i.id === second);
    assert.equal(left?.status, 'stopped', 'still billed: not "terminated" for the proof');
    assert.equal(left?.instanceType, 'left without its VM: NIC, public IP, disk');
    assert.equal(partsOf(req.uid, second).disk?.properties.diskState, 'Unattached');

    await p.terminateInstances({ uid: req.uid }, [second]); // what the proof's re-issue does
    assert.deepEqual(partsOf(req.uid, second), { nic: undefined, ip: undefined, disk: undefined });
    assert.ok(!(await p.queryInstances({ uid: req.uid })).some((i) => i.id === second));
    await p.terminateInstances({ uid: req.uid });
  });

  it('a VM being deleted that will leave a part reads "stopping", not "terminating", unless its whole group is being deleted', async () => {
    const p = bed.provider();
    const req = runRequest({ numNodes: 2 });
    const [id, other] = (await p.runInstances(req)).created;
    const vm = part(req.uid, `Microsoft.Compute/virtualMachines/${id}`)!;
    const status = async (of: string) => (await p.queryInstances({ uid: req.uid })).find((i) => i.id === of)?.status;
    vm.properties.provisioningState = 'Deleting'; // as while its delete runs (held here, no operation)
    assert.equal(await status(id), 'terminating', 'every deleteOption says Delete');
    part(req.uid, `Microsoft.Network/networkInterfaces/${id}-nic`)!.properties.ipConfigurations[0].properties.publicIPAddress.properties.deleteOption = 'Detach';
    assert.equal(await status(id), 'stopping', 'its public IP would stay');
    part(req.uid, `Microsoft.Network/networkInterfaces/${id}-nic`)!.properties.ipConfigurations[0].properties.publicIPAddress.properties.deleteOption = 'Delete';
    vm.properties.storageProfile.osDisk.deleteOption = 'Detach';
    assert.equal(await status(id), 'stopping', 'its disk would stay');
    assert.equal(await status(other), 'running');
    bed.fake.model.group(groupName(req.uid)).properties.provisioningState = 'Deleting';
    assert.equal(await status(id), 'terminating', 'a group delete takes every part');
    bed.fake.model.group(groupName(req.uid)).properties.provisioningState = 'Succeeded';
    vm.properties.provisioningState = 'Succeeded';
    await p.terminateInstances({ uid: req.uid });
  });

  it('ARM ignores a public IP\'s own deleteOption and a NIC reference\'s unflattened one; in-use parts refuse deletion', async () => {
    const p = bed.provider();
    const req = runRequest({ numNodes: 2 });
    const [id] = (await p.runInstances(req)).created;
    const c = new AzureClients(bed.options());
    const group = groupName(req.uid);
    const ip = await c.network.publicIPAddresses.beginCreateOrUpdateAndWait(group, 'spare-ip', { location: 'eastus', deleteOption: 'Delete', sku: { name: 'Standard' } }, { updateIntervalInMs: 10 });
    assert.equal(ip.deleteOption, undefined, 'not stored, not echoed (azure-rest-api-specs#25475)');
    await c.network.publicIPAddresses.beginDeleteAndWait(group, 'spare-ip', { updateIntervalInMs: 10 });

    assert.equal(await code(c.network.networkInterfaces.beginDeleteAndWait(group, `${id}-nic`, { updateIntervalInMs: 10 })), '400 NicInUse');
    assert.equal(await code(c.network.publicIPAddresses.beginDeleteAndWait(group, `${id}-ip`, { updateIntervalInMs: 10 })), '400 PublicIPAddressInUse');
    assert.equal(await code(c.compute.disks.delete(group, `${id}-osdisk`, { updateIntervalInMs: 10 })), '409 OperationNotAllowed');

    // A reference with deleteOption beside id (not under "properties") is not the schema's: the NIC stays.
    const vm = part(req.uid, `Microsoft.Compute/virtualMachines/${id}`)!;
    vm.properties.networkProfile.networkInterfaces = [{ id: vm.properties.networkProfile.networkInterfaces[0].id, deleteOption: 'Delete' }];
    await p.terminateInstances({ uid: req.uid }, [id]);
    await until('the VM is gone', () => !part(req.uid, `Microsoft.Compute/virtualMachines/${id}`));
    assert.ok(partsOf(req.uid, id).nic, 'the NIC was detached, not deleted');
    assert.ok(partsOf(req.uid, id).ip, 'and its IP stays on it');
    assert.equal(partsOf(req.uid, id).disk, undefined, 'the OS disk said Delete');
    await p.terminateInstances({ uid: req.uid });
  });
});
