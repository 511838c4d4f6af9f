import type { VirtualMachine } from '@azure/arm-compute';
import type { NetworkInterface } from '@azure/arm-network';
import { TAG_UID, type InstanceInfo } from '../provider';
import type { AzureClients } from './clients';
import { azCall, isGroupGone, isNotFound } from './errors';
import type { Vm } from './listing';
import { vmOfPart } from './names';

// A VM's public IP, NIC and OS disk are separate ARM resources that bill on their own. Deleting
// the VM takes them along only as its deleteOptions say (the NIC reference's, the NIC's
// reference to the IP, the OS disk's), so a part can outlive its VM: a cascade that did not
// happen, a cluster made before a deleteOption was set. Such parts are shown as one
// pseudo-instance per VM name, so a terminate is proven only once they are gone too.

export interface Part {
  kind: 'NIC' | 'public IP' | 'disk';
  name: string;
  deleting: boolean;
  location?: string;
  tags?: Record<string, string>;
  /** A NIC with a public IP its reference does not say Delete for (the IP outlives a VM delete). */
  keepsIp?: boolean;
}

type Named = { name?: string; location?: string; tags?: Record<string, string>; provisioningState?: string; ipConfigurations?: NetworkInterface['ipConfigurations'] };

async function parts(kind: Part['kind'], list: AsyncIterable<Named>, group: string): Promise<Part[]> {
  const out: Part[] = [];
  try {
    for await (const r of list) {
      if (!r.name) continue;
      const keepsIp = (r.ipConfigurations ?? []).some((cfg) => cfg.publicIPAddress && cfg.publicIPAddress.deleteOption !== 'Delete');
      out.push({ kind, name: r.name, deleting: r.provisioningState === 'Deleting', location: r.location, tags: r.tags, ...(keepsIp ? { keepsIp } : {}) });
    }
  } catch (e) {
    if (!isGroupGone(e, group)) throw e;
  }
  return out;
}

/**
 * A part of cluster `uid` in a shared jobs group: by its uid tag, or untagged (an OS disk made
 * by its VM's PUT) by its VM's name, which carries the uid's first characters (names.ts vmName).
 */
function partOf(p: Part, vm: string, uid: string): boolean {
  const tagged = p.tags?.[TAG_UID];
  if (tagged) return tagged === uid;
  return vm.toLowerCase().includes(`-${uid.replace(/[^a-z0-9]/g, '').slice(0, 8)}-`);
}

/** The group's NICs, IPs and disks by the VM (name) they belong to; `uid`: only that cluster's (a shared jobs group). */
export async function partsByVm(c: AzureClients, group: string, uid?: string): Promise<Map<string, Part[]>> {
  const all = (await Promise.all([
    parts('NIC', c.network.networkInterfaces.list(group), group),
    parts('public IP', c.network.publicIPAddresses.list(group), group),
    parts('disk', c.compute.disks.listByResourceGroup(group) as AsyncIterable<Named>, group),
  ])).flat();
  const out = new Map<string, Part[]>();
  for (const p of all) {
    const vm = vmOfPart(p.name);
    if (vm && (!uid || partOf(p, vm, uid))) out.set(vm, [...(out.get(vm) ?? []), p]);
  }
  return out;
}

/** Those whose VM is not among `vms` (listed at about the same time: both lists run together). */
export function leftOf(parts: Map<string, Part[]>, vms: string[]): [string, Part[]][] {
  const live = new Set(vms.map((n) => n.toLowerCase()));
  return [...parts].filter(([vm]) => !live.has(vm.toLowerCase()));
}

/** Whether deleting the VM leaves a part behind: a NIC, OS disk or IP whose deleteOption is not Delete. */
export function deleteLeaves(vm: VirtualMachine, parts: Part[] = []): boolean {
  return (vm.networkProfile?.networkInterfaces ?? []).some((r) => r.deleteOption !== 'Delete')
    || vm.storageProfile?.osDisk?.deleteOption !== 'Delete' || parts.some((p) => p.kind === 'NIC' && p.keepsIp);
}

/**
 * A VM being deleted on its own whose delete leaves a part is not "terminating" for a proof
 * (the part bills on): it reads "stopping" until it is gone and its parts show as left. In a
 * group being deleted everything goes, so there it stays terminating.
 */
export async function holdLeavingDeletes(c: AzureClients, group: string, vms: Vm[], infos: InstanceInfo[], parts: Map<string, Part[]>): Promise<void> {
  const leaving = infos.filter((info, i) => info.status === 'terminating' && deleteLeaves(vms[i].vm, parts.get(vms[i].vm.name ?? '')));
  if (!leaving.length) return;
  const state = await azCall('resourceGroups.get', async () => {
    try {
      return (await c.resources.resourceGroups.get(group)).properties?.provisioningState;
    } catch (e) {
      if (isGroupGone(e, group)) return 'Deleting';
      throw e;
    }
  });
  if (state === 'Deleting') return;
  for (const info of leaving) Object.assign(info, { status: 'stopping', instanceType: `${info.instanceType ?? 'VM'}, deleted without its NIC, public IP or disk` });
}

/** Still billed ("stopped"), or "terminating" once every part is being deleted (a group delete under way). */
export function leftoverInfo(vm: string, ps: Part[]): InstanceInfo {
  return {
    id: vm, status: ps.every((p) => p.deleting) ? 'terminating' : 'stopped', region: ps.find((p) => p.location)?.location,
    launchedAt: 0, tags: { ...(ps.find((p) => p.tags)?.tags ?? {}) }, instanceType: `left without its VM: ${ps.map((p) => p.kind).join(', ')}`,
  };
}

/** Deletes parts a VM left: the NIC first (an IP on a NIC cannot be deleted), then the IP and the disk. */
export async function deleteLeftovers(c: AzureClients, group: string, ps: Part[], lro: { updateIntervalInMs: number }): Promise<void> {
  const gone = (e: unknown) => {
    if (!isNotFound(e)) throw e;
  };
  for (const p of ps.filter((x) => x.kind === 'NIC')) await c.network.networkInterfaces.beginDeleteAndWait(group, p.name, lro).catch(gone);
  await Promise.all(ps.filter((x) => x.kind !== 'NIC').map((p) => (p.kind === 'disk'
    ? c.compute.disks.delete(group, p.name, lro)
    : c.network.publicIPAddresses.beginDeleteAndWait(group, p.name, lro)).catch(gone)));
}
