import type { ImageReference, VirtualMachine } from '@azure/arm-compute';
import { ProviderError, type NodeShape, type Placement, type RunRequest } from '../provider';
import { DEFAULT_DISK_GB, shapeOf } from '../nodeShape';
import type { AcceleratorOption } from '../../task/types';
import { chooseType, describeShape } from '../../catalog';
import { AZURE_SHIPPED, isBurstable } from '../../catalog/azureShipped';
import { azCall } from './errors';
import { createNic, type NetCtx } from './network';
import { grantSelfStop } from './identity';
import { diskName, TAG_HEAD } from './names';
import { AZURE_SSH_USER, UBUNTU_2204, UBUNTU_2204_ARM64 } from './options';

/** The VM size: the placement's, else the cheapest catalog size that fits (the location's listing, or the shipped table). */
export function pickSize(placement: Placement, shape: NodeShape, catalog: Parameters<typeof chooseType>[0] = AZURE_SHIPPED): string {
  if (placement.instanceType) return placement.instanceType;
  const accs: (AcceleratorOption | undefined)[] = shape.accelerators?.length ? shape.accelerators : [undefined];
  // A location's listing has burstable sizes too, priced from the shipped table: never picked by shape.
  const pickable = catalog.filter((t) => !isBurstable(t.name));
  for (const accelerator of accs) {
    const t = chooseType(pickable, { cpus: shape.cpus, memory: shape.memory, accelerator, useSpot: placement.useSpot });
    if (t) return t.name;
  }
  throw new ProviderError('capacity', `no Azure VM size offers ${describeShape({ cpus: shape.cpus, memory: shape.memory, accelerator: shape.accelerators?.[0] })}${placement.region ? ` in ${placement.region}` : ''}`,
    'relax cpus/memory (use "N+" for "at least"), pick other accelerators, or set instance_type');
}

/**
 * Autostop: the head's agent deallocates or deletes the cluster as its system-assigned identity
 * (identity.ts); Blob mounts: every node also holds the cluster's user-assigned one.
 */
function identityOf(system: boolean, user: string | undefined): Pick<VirtualMachine, 'identity'> {
  if (!system && !user) return {};
  const type = system && user ? 'SystemAssigned, UserAssigned' : system ? 'SystemAssigned' : 'UserAssigned';
  return { identity: { type, ...(user ? { userAssignedIdentities: { [user]: {} } } : {}) } };
}

/** Arm64 (Ampere) sizes carry "p" among the feature letters after the vCPU count: D4ps_v5, B2pls_v2, E2pds_v5. */
export const isArm64Size = (size: string): boolean => /^Standard_[A-Z]+\d+[a-z]*p[a-z]*_v\d+$/i.test(size);

/** `image_id` as "publisher:offer:sku[:version]" (SkyPilot's form) or an ARM image id; Ubuntu 22.04 when absent (its Arm64 build on an Arm64 size). */
function imageReference(imageId: NodeShape['imageId'], location: string, size: string): ImageReference {
  const id = typeof imageId === 'string' ? imageId : imageId?.[location];
  if (!id) return isArm64Size(size) ? UBUNTU_2204_ARM64 : UBUNTU_2204;
  if (id.startsWith('/')) return { id };
  const [publisher, offer, sku, version = 'latest'] = id.split(':');
  if (!publisher || !offer || !sku) throw new ProviderError('config', `image_id "${id}" is not publisher:offer:sku[:version] or an image id`);
  return { publisher, offer, sku, version };
}

export interface VmCtx extends NetCtx {
  subnetId: string;
  publicKey: string;
  zone?: string;
  /** The cluster's user-assigned identity for Blob containers (bucketIdentity.ts), on every VM. */
  bucketIdentity?: string;
  log?: (m: string) => void;
}

/**
 * One VM with its IP and NIC, awaited until ARM says Succeeded: an allocation failure arrives
 * as the operation's Failed status and is thrown here as capacity.
 */
export async function createVm(x: VmCtx, req: RunRequest, name: string, head: boolean): Promise<void> {
  const shape = shapeOf(req);
  const nicId = await createNic(x, name, x.subnetId, x.zone);
  const spot = req.placement.useSpot;
  const vm: VirtualMachine = {
    location: x.location,
    tags: { ...x.tags, ...(head ? { [TAG_HEAD]: 'true' } : {}) },
    ...(x.zone ? { zones: [x.zone] } : {}),
    hardwareProfile: { vmSize: pickSize(req.placement, shape) },
    storageProfile: {
      imageReference: imageReference(shape.imageId, x.location, pickSize(req.placement, shape)),
      // OSDisk.deleteOption defaults to Detach (the disk outlives the VM and bills): Delete.
      osDisk: { name: diskName(name), createOption: 'FromImage', deleteOption: 'Delete', diskSizeGB: shape.diskSize ?? DEFAULT_DISK_GB, managedDisk: { storageAccountType: 'StandardSSD_LRS' } },
    },
    osProfile: {
      computerName: name, adminUsername: AZURE_SSH_USER,
      linuxConfiguration: { disablePasswordAuthentication: true, ssh: { publicKeys: [{ path: `/home/${AZURE_SSH_USER}/.ssh/authorized_keys`, keyData: x.publicKey }] } },
    },
    // NetworkInterfaceReferenceProperties.deleteOption (default Detach): the NIC goes with the VM.
    networkProfile: { networkInterfaces: [{ id: nicId, primary: true, deleteOption: 'Delete' }] },
    // Evicted spot VMs are deallocated (disk kept, compute not billed), so they can be started
    // again; maxPrice -1 means "up to the on-demand price": no eviction for price.
    ...(spot ? { priority: 'Spot', evictionPolicy: 'Deallocate', billingProfile: { maxPrice: -1 } } : { priority: 'Regular' }),
    ...identityOf(head && !!req.autostop, x.bucketIdentity),
  };
  const made = await azCall('virtualMachines.createOrUpdate', () => x.c.compute.virtualMachines.createOrUpdate(x.group, name, vm, x.lro));
  if (head && req.autostop) {
    const principalId = made.identity?.principalId;
    if (!principalId) throw new ProviderError('config', `Azure created ${name} without the managed identity autostop needs`);
    await grantSelfStop({ c: x.c, group: x.group, principalId, down: req.autostop.down, lro: x.lro, log: x.log });
  }
}
