import type { AzureClients } from './clients';
import { azCall, isNotFound } from './errors';
import { deleteLeftovers, leftOf, partsByVm } from './leftovers';
import { listVms } from './listing';

/**
 * Ends a cluster's group, or some of its VMs: each VM by its delete (its disk, NIC and IP go
 * along by their deleteOptions); an id whose VM is gone but whose parts are left: those parts.
 */
export async function terminateIn(
  c: AzureClients, group: string, ids: string[] | undefined, lro: { updateIntervalInMs: number }, beforeWhole?: () => Promise<unknown>,
): Promise<void> {
  const ignoreGone = (e: unknown) => {
    if (!isNotFound(e)) throw e;
  };
  // Ids naming every VM of the group (the sweep ends a leaked cluster one id at a time, and
  // an empty group's pseudo-instance is the group's name) end the whole group.
  const vms = ids ? (await listVms(c, group)).map((v) => v.vm.name!) : [];
  const whole = !ids || vms.every((n) => ids.includes(n));
  if (whole) {
    // What lives outside the group (Blob grants) first: a failure here keeps the group, so no proof.
    await beforeWhole?.();
    await azCall('resourceGroups.delete', () => c.resources.resourceGroups
      .beginDelete(group, { ...lro, forceDeletionTypes: 'Microsoft.Compute/virtualMachines' }).catch(ignoreGone));
    return;
  }
  const vmIds = ids.filter((id) => vms.includes(id));
  await Promise.all(vmIds.map((id) => azCall('virtualMachines.delete', () => c.compute.virtualMachines.delete(group, id, lro).submitted().catch(ignoreGone))));
  if (vmIds.length === ids.length) return;
  const left = new Map(leftOf(await azCall('leftovers', () => partsByVm(c, group)), vms));
  await Promise.all(ids.filter((id) => left.has(id)).map((id) => azCall('leftovers.delete', () => deleteLeftovers(c, group, left.get(id)!, lro))));
}
