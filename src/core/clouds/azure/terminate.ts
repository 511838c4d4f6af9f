import type { AzureClients } from './clients';
import { azCall, isNotFound } from './errors';
import { deleteLeftovers, leftOf, partsByVm } from './leftovers';
import { listVms } from './listing';
import { deleteNetwork } from './network';

/**
 * Ends a cluster's group, or some of its VMs: each VM by its delete (its disk, NIC and IP go
 * along by their deleteOptions); an id whose VM is gone but whose parts are left: those parts.
 */
export async function terminateIn(
  c: AzureClients, group: string, ids: string[] | undefined, lro: { updateIntervalInMs: number }, beforeWhole?: () => Promise<unknown>, sharedUid?: string,
): Promise<void> {
  if (sharedUid) return terminateShared(c, group, sharedUid, ids, lro, beforeWhole);
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

/**
 * A job cluster in its controller's shared jobs group, which is not its to delete: its VMs one
 * by one, awaited (a subnet in use cannot be deleted), then any part they left, then, once
 * nothing of it is left, its own VNet and NSG, so a long-lived controller does not pile them up.
 */
async function terminateShared(
  c: AzureClients, group: string, uid: string, ids: string[] | undefined, lro: { updateIntervalInMs: number }, beforeWhole?: () => Promise<unknown>,
): Promise<void> {
  const ignoreGone = (e: unknown) => {
    if (!isNotFound(e)) throw e;
  };
  const vms = (await listVms(c, group, uid)).map((v) => v.vm.name!);
  const whole = !ids || vms.every((n) => ids.includes(n));
  if (whole) await beforeWhole?.();
  const ending = whole ? vms : vms.filter((n) => ids!.includes(n));
  await Promise.all(ending.map((n) => azCall('virtualMachines.delete', () => c.compute.virtualMachines.beginDeleteAndWait(group, n, lro).catch(ignoreGone))));
  const live = vms.filter((n) => !ending.includes(n));
  const left = leftOf(await azCall('leftovers', () => partsByVm(c, group, uid)), live);
  const asked = left.filter(([vm]) => whole || ids!.includes(vm));
  await Promise.all(asked.map(([, ps]) => azCall('leftovers.delete', () => deleteLeftovers(c, group, ps, lro))));
  if (whole) await deleteNetwork(c, group, uid, lro);
}
