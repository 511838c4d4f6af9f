import type { VirtualMachine, VirtualMachineInstanceView } from '@azure/arm-compute';
import { TAG_UID, type InstanceInfo } from '../provider';
import type { AzureClients } from './clients';
import { azCall, isGroupGone, isNotFound } from './errors';
import { powerStateOf } from './status';

export type Vm = { vm: VirtualMachine; view?: VirtualMachineInstanceView; power?: string };

/**
 * A group's VMs with their instance views; a missing group has none (it was deleted); any other
 * 404 is an error. `uid`: only that cluster's (by its tag), in a controller's shared jobs group.
 */
export async function listVms(c: AzureClients, group: string, uid?: string): Promise<Vm[]> {
  const list = await azCall('virtualMachines.list', async () => {
    const out: VirtualMachine[] = [];
    try {
      for await (const vm of c.compute.virtualMachines.list(group)) if (!uid || vm.tags?.[TAG_UID] === uid) out.push(vm);
    } catch (e) {
      if (!isGroupGone(e, group)) throw e;
    }
    return out;
  });
  // Listing does not carry power states ($expand=instanceView needs a $filter): one view per VM.
  const views = await Promise.all(list.map((vm) => instanceViewOf(c, group, vm.name!)));
  return list.flatMap((vm, i) => (views[i] === null ? [] : [{ vm, view: views[i] ?? undefined, power: powerStateOf(views[i] ?? undefined) }]));
}

/** A VM's instance view; null when the VM vanished between the listing and this call. */
export function instanceViewOf(c: AzureClients, group: string, name: string): Promise<VirtualMachineInstanceView | null> {
  return azCall('virtualMachines.instanceView', async () => {
    try {
      return await c.compute.virtualMachines.instanceView(group, name);
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  });
}

/**
 * Skydeck resource groups holding no VM (a create that failed after its IP and NIC were
 * made, an interrupted delete): public IPs and disks in them still bill, so the sweep sees
 * each as one pseudo-instance whose id is the group's name; terminating it deletes the group.
 * The listing is unfiltered and the tag is checked here: ARM's tag-filtered listing may come
 * without the tags (documented for Resources - List), and the uid is read from them.
 */
export function emptyGroups(c: AzureClients, withVms: Set<string>): Promise<InstanceInfo[]> {
  return azCall('resourceGroups.list', async () => {
    const out: InstanceInfo[] = [];
    for await (const g of c.resources.resourceGroups.list()) {
      if (!g.name || withVms.has(g.name.toLowerCase()) || !g.tags?.[TAG_UID]) continue;
      const state = g.properties?.provisioningState;
      out.push({ id: g.name, status: state === 'Deleting' ? 'terminating' : 'stopped', region: g.location, launchedAt: 0, tags: { ...g.tags }, instanceType: 'resource group without VMs' });
    }
    return out;
  });
}
