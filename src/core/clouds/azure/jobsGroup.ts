// A managed-jobs controller's jobs group: the one resource group its job clusters go into
// (names.ts jobsGroupName). Made from this machine with the controller; on the controller VM
// only checked; deleted with the controller, or VM by VM by the sweep here, each proven gone.
import { ProviderError, TAG_UID } from '../provider';
import type { IdentityRelease, ReleaseOptions } from '../clusterIdentity';
import type { AzureClients } from './clients';
import { azCall, isNotFound } from './errors';
import { groupState, waitGroupGone } from './group';
import { listVms } from './listing';
import { jobsGroupName } from './names';

type Lro = { updateIntervalInMs: number };

/**
 * Deletes the controller `uid`'s jobs group when it exists; returns the uids of the job
 * clusters whose VMs it held (for the proof), undefined when there was no such group.
 */
export async function deleteJobsGroup(c: AzureClients, uid: string, lro: Lro): Promise<string[] | undefined> {
  const group = jobsGroupName(uid);
  const there = await azCall('resourceGroups.checkExistence', async () => (await c.resources.resourceGroups.checkExistence(group)).body);
  if (!there) return undefined;
  const held = [...new Set((await listVms(c, group)).map((v) => v.vm.tags?.[TAG_UID] ?? v.vm.name!))];
  await azCall('resourceGroups.delete', () => c.resources.resourceGroups.beginDelete(group, { ...lro, forceDeletionTypes: 'Microsoft.Compute/virtualMachines' }).catch((e) => {
    if (!isNotFound(e)) throw e;
  }));
  return held;
}

/**
 * From this machine (the sweep): one VM of job cluster `uid` in a controller's jobs group,
 * deleted (its parts go by their deleteOptions) only when its uid tag says it is that cluster's.
 */
export async function endJobsGroupVm(c: AzureClients, uid: string, group: string, vm: string, lro: Lro): Promise<void> {
  const found = await azCall('virtualMachines.get', async () => {
    try {
      return await c.compute.virtualMachines.get(group, vm);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  });
  if (!found) return;
  if (found.tags?.[TAG_UID] !== uid) throw new ProviderError('config', `${group}/${vm} is not a VM of cluster ${uid}`);
  await azCall('virtualMachines.delete', () => c.compute.virtualMachines.delete(group, vm, lro).submitted().catch((e) => {
    if (!isNotFound(e)) throw e;
  }));
}

/** On a controller VM: its jobs group must be there (this machine makes it with the controller); the VM may not make one. */
export async function jobsGroupThere(c: AzureClients, group: string): Promise<void> {
  const state = await groupState(c, group);
  if (state === 'gone' || state === 'Deleting') {
    throw new ProviderError('config', `this managed-jobs controller's resource group ${group} is ${state === 'gone' ? 'missing' : 'being deleted'}`,
      'launch the managed-jobs controller again from your machine (it makes the group), or down it and launch a new one');
  }
}

/** The controller's jobs group waited for (bounded) and proven gone by a 404, naming the job clusters whose VMs it held. */
export async function proveJobsGroupGone(c: AzureClients, uid: string, held: string[], lro: Lro, opts: ReleaseOptions, out: IdentityRelease): Promise<void> {
  const group = jobsGroupName(uid);
  const id = `/subscriptions/${c.subscriptionId}/resourceGroups/${group}`;
  const name = `${group} (the job clusters' group of controller ${uid}${held.length ? `; it held VMs of ${held.join(', ')}` : ''})`;
  opts.progress(`Waiting for resource group ${group} to be deleted`);
  try {
    await waitGroupGone(c, group, lro.updateIntervalInMs, opts.timeoutMs);
  } catch {
    out.left.push({ kind: 'resource group', name, why: `not deleted within ${Math.round(opts.timeoutMs / 1000)} s` });
    return;
  }
  const there = await azCall('resourceGroups.checkExistence', async () => (await c.resources.resourceGroups.checkExistence(group)).body);
  if (there) out.left.push({ kind: 'resource group', name, why: `GET ${id} still answers after its delete` });
  else out.gone.push({ kind: 'resource group', name, proof: `GET ${id} answers 404` });
}
