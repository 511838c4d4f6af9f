import { randomBytes } from 'node:crypto';

// One resource group per cluster, named from the uid alone so every call that only has a
// ClusterRef (uid) finds it, and teardown is one delete that takes everything inside along.

export function groupName(uid: string): string {
  // The uid becomes a resource-group name in every call's URL path: nothing but a plain token.
  if (!/^[A-Za-z0-9-]{1,64}$/.test(uid)) throw new Error(`${JSON.stringify(uid)} is not a Skydeck cluster uid`);
  return `skydeck-${uid}`;
}

// A managed-jobs controller's job clusters all live in ONE group made for that controller by
// this machine before the controller VM exists (bucketIdentity.ts ensureJobsGroup): the
// controller's compute and network role is assigned at that group alone (controllerRole.ts), so
// it reaches no VM, disk or network of any other group. Named from the controller's uid.
const UID = /^[A-Za-z0-9-]{1,64}$/;

export function jobsGroupName(controllerUid: string): string {
  if (!UID.test(controllerUid)) throw new Error(`${JSON.stringify(controllerUid)} is not a Skydeck cluster uid`);
  return `skydeck-${controllerUid}-jobs`;
}

/**
 * A jobs group's name as read back (the controller VM's environment, a sweep's id): only what
 * jobsGroupName makes, so a hostile value never reaches a URL path nor names another group.
 */
export function isJobsGroupName(name: string): boolean {
  const m = /^skydeck-(.+)-jobs$/.exec(name);
  return !!m && UID.test(m[1]);
}

/** The controller's uid from its jobs identity's id (its own group, groupName): undefined for anything else. */
export function controllerUidOfJobsIdentity(id: string): string | undefined {
  const m = /^\/subscriptions\/[A-Za-z0-9-]{1,64}\/resourceGroups\/skydeck-([A-Za-z0-9-]{1,64})\/providers\/Microsoft\.ManagedIdentity\/userAssignedIdentities\/skydeck-jobs$/i.exec(id);
  return m?.[1];
}

/** How the sweep names a VM in a jobs group: "<group>/<vm>" (a VM name has no "/"). */
export function jobsVmId(group: string, vm: string): string {
  return `${group}/${vm}`;
}

/** A sweep's "<group>/<vm>" id read back: undefined unless the group is a jobs group and the name a plain one. */
export function parseJobsVmId(id: string): { group: string; vm: string } | undefined {
  const m = /^([^/]+)\/([A-Za-z0-9][A-Za-z0-9._-]{0,63})$/.exec(id);
  return m && isJobsGroupName(m[1]) ? { group: m[1], vm: m[2] } : undefined;
}

export const VNET = 'skydeck-vnet';
export const SUBNET = 'default';
export const NSG = 'skydeck-nsg';

/** A cluster's VNet and NSG: the fixed names in its own group; suffixed by its uid in a shared jobs group. */
export function netNames(sharedUid?: string): { vnet: string; nsg: string } {
  return sharedUid ? { vnet: `${VNET}-${sharedUid}`, nsg: `${NSG}-${sharedUid}` } : { vnet: VNET, nsg: NSG };
}
/** Tag marking the head VM, set at creation (one VM per create call). */
export const TAG_HEAD = 'skydeck-head';

/** Linux VM names: letters, digits, "-"; at most 64. Cluster slug, uid prefix, random suffix. */
export function vmName(clusterName: string, uid: string): string {
  const slug = clusterName.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 30).replace(/-+$/, '');
  return `${slug || 'sky'}-${uid.replace(/[^a-z0-9]/g, '').slice(0, 8)}-${randomBytes(2).toString('hex')}`;
}

export const ipName = (vm: string) => `${vm}-ip`;
export const nicName = (vm: string) => `${vm}-nic`;
/** The OS disk, named at create so a disk left by its VM can be told by name (as the IP and NIC). */
export const diskName = (vm: string) => `${vm}-osdisk`;

/** The VM a NIC, public IP or OS disk of ours belongs to, from its name ("<vm>_OsDisk_1_<hex>": Azure's default disk name). */
export function vmOfPart(name: string): string | undefined {
  return /^(.+?)(?:-nic|-ip|-osdisk|_OsDisk_\d+_[0-9a-f]{32})$/i.exec(name)?.[1];
}

/** The resource group of an ARM id ("/subscriptions/s/resourceGroups/RG/providers/…"). */
export function groupOf(id: string | undefined): string {
  return /\/resourceGroups\/([^/]+)/i.exec(id ?? '')?.[1] ?? '';
}
