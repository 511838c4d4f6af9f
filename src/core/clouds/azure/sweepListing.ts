import type { VirtualMachine } from '@azure/arm-compute';
import { TAG_UID, type TaggedListing, type UnlistedPart } from '../provider';
import type { AzureClients } from './clients';
import { azCall, toAzureError } from './errors';
import { grantIdentities } from './bucketGrants';
import { emptyGroups, instanceViewOf, listVms } from './listing';
import { groupOf, isJobsGroupName, jobsVmId } from './names';
import { infoOf } from './status';

/**
 * What the leak sweep sees of one subscription: every VM carrying the Skydeck uid tag, with
 * its power state, Skydeck groups without VMs, and the Blob role assignments of clusters
 * (bucketGrants.ts), which outlive their group. ARM lists a subscription's VMs of every
 * location in one call, so there is no per-location part to miss.
 */
export async function listSubscription(c: AzureClients): Promise<TaggedListing> {
  const tagged = await azCall('virtualMachines.listAll', async () => {
    const out: VirtualMachine[] = [];
    for await (const vm of c.compute.virtualMachines.listAll()) if (vm.tags?.[TAG_UID]) out.push(vm);
    return out;
  });
  const withViews = await Promise.all(tagged.map(async (vm) => ({ vm, view: await instanceViewOf(c, groupOf(vm.id), vm.name!) })));
  // A VM in a controller's jobs group is named with that group ("<group>/<vm>", jobsVmId): its
  // uid's own group is not where it is, so a terminate from here finds it by that id alone.
  const vms = withViews.filter((v) => v.view !== null).map((v) => {
    const info = infoOf(v.vm, v.view ?? undefined);
    const g = groupOf(v.vm.id);
    return isJobsGroupName(g) ? { ...info, id: jobsVmId(g, info.id) } : info;
  });
  const instances = [...vms, ...(await emptyGroups(c, new Set(tagged.map((vm) => groupOf(vm.id).toLowerCase()))))];
  // A failed listing of the grants is named as unlisted, never "none".
  const unlisted: UnlistedPart[] = [];
  const identities = await grantIdentities(c).catch((e: unknown) => {
    const pe = toAzureError(e, 'roleAssignments.list');
    unlisted.push({ region: 'role assignments', kind: pe.kind, message: pe.message });
    return undefined;
  });
  return { account: c.subscriptionId, instances, listed: ['all locations'], unlisted, ...(identities ? { identities } : {}) };
}

/**
 * On a managed-jobs controller VM: the VMs of its jobs group (with power states), the only
 * group its role may list; the subscription's other VMs are none of its business.
 */
export async function listJobsGroup(c: AzureClients, group: string): Promise<TaggedListing> {
  const vms = await listVms(c, group);
  const instances = vms.filter((v) => v.vm.tags?.[TAG_UID]).map((v) => infoOf(v.vm, v.view));
  return { account: c.subscriptionId, instances, listed: [`resource group ${group}`], unlisted: [] };
}
