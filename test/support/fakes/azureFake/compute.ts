// Microsoft.Compute/virtualMachines as ARM validates and runs them: synchronous 4xx for a bad
// request (size, image, NIC reference, quota, restricted SKU), then an async operation that may
// end AllocationFailed; power state moves through starting/deallocating/... over time.
import { allocationFailed, ArmError, badReference, imageNotFound, invalidSize, quotaExceeded, skuNotAvailable } from './bodies';
import { IMAGES, SIZES, type ArmModel, type AsyncOp, type Json } from './model';
import { removeNetwork } from './network';

export function putVm(m: ArmModel, id: string, rg: string, name: string, body: Json): { status: number; body: Json; op: AsyncOp } {
  const p = body.properties ?? {};
  const size = String(p.hardwareProfile?.vmSize ?? '');
  const location = String(body.location ?? '');
  if (!SIZES[size]) throw invalidSize(size);
  if (m.restricted.has(location) || m.restricted.has(`${location}/${size}`)) throw skuNotAvailable(size, location);
  const img = p.storageProfile?.imageReference ?? {};
  const urn = `${img.publisher}:${img.offer}:${img.sku}`;
  if (!img.id && !IMAGES.has(urn)) throw imageNotFound(`${urn}:${img.version ?? 'latest'}`);
  for (const nic of p.networkProfile?.networkInterfaces ?? []) if (!m.get(nic.id)) throw badReference(nic.id, id);
  // Compute spec (ComputeRP stable 2024-07-01, virtualMachine.json / computeRPCommon.json):
  // NetworkInterfaceReference carries primary/deleteOption under "properties"
  // (NetworkInterfaceReferenceProperties, flattened by the SDKs); a bare top-level
  // deleteOption is not part of the schema and does nothing.
  const nics = ((p.networkProfile?.networkInterfaces ?? []) as Json[]).map((r) => ({ id: r.id, ...(r.properties ? { properties: r.properties } : {}) }));
  const spot = p.priority === 'Spot';
  const quota = spot ? m.spotQuota : m.coreQuota;
  const want = SIZES[size].cores;
  if (quota !== undefined && m.coresUsed(location, spot) + want > quota) {
    throw quotaExceeded(spot ? 'LowPriorityCores' : SIZES[size].family, location, quota, m.coresUsed(location, spot), want);
  }
  const existing = m.get(id);
  const vm = existing ?? { id, name, type: 'Microsoft.Compute/virtualMachines' };
  Object.assign(vm, { location, tags: body.tags ?? {}, ...(body.zones ? { zones: body.zones } : {}) });
  const identity = m.identities.vmIdentity(m, body.identity, existing?.identity);
  if (identity) vm.identity = identity;
  const { adminPassword: _secret, ...osProfile } = p.osProfile ?? {};
  vm.properties = {
    ...p, osProfile, vmId: vm.properties?.vmId ?? crypto.randomUUID(), timeCreated: vm.properties?.timeCreated ?? new Date().toISOString(),
    provisioningState: existing ? 'Updating' : 'Creating', networkProfile: { ...(p.networkProfile ?? {}), networkInterfaces: nics },
    storageProfile: { ...(p.storageProfile ?? {}), osDisk: existing?.properties?.storageProfile?.osDisk ?? osDisk(m, rg, name, vm, body) },
  };
  m.put(vm);
  for (const r of nics) m.get(r.id)!.properties.virtualMachine = { id };
  if (existing) return { status: 200, body: vm, op: m.op(1, () => (vm.properties.provisioningState = 'Succeeded')) };
  vm._power = 'starting';
  if (m.allocationFails.has(location)) {
    const op = m.op(2, () => {
      vm.properties.provisioningState = 'Failed';
      vm._power = undefined;
    }, allocationFailed);
    return { status: 201, body: vm, op };
  }
  const op = m.op(3, () => {
    vm.properties.provisioningState = 'Succeeded';
    vm._power = 'running';
  });
  return { status: 201, body: vm, op };
}

/** deallocate / start / powerOff / restart: the power state moves, the operation finishes after. */
export function vmAction(m: ArmModel, vm: Json, action: string): AsyncOp {
  if (vm.properties.provisioningState === 'Deleting') {
    throw new ArmError(409, 'OperationNotAllowed', `Operation '${action}' is not allowed since the VM is marked for deletion.`);
  }
  switch (action) {
    case 'deallocate':
      vm._power = 'deallocating';
      return m.op(3, () => (vm._power = 'deallocated'));
    case 'powerOff':
      vm._power = 'stopping';
      return m.op(2, () => (vm._power = 'stopped'));
    case 'start':
      if (vm._power === 'running') return m.op(1, () => undefined);
      if (m.allocationFails.has(vm.location)) return m.op(2, () => undefined, allocationFailed);
      vm._power = 'starting';
      return m.op(3, () => (vm._power = 'running'));
    default:
      throw new ArmError(400, 'InvalidRequestUri', `The request URI is invalid: action '${action}'.`);
  }
}

/**
 * The managed OS disk a VM made from an image gets: a Microsoft.Compute/disks resource of its
 * own, named by osDisk.name or else "<vm>_OsDisk_1_<hex>" as Azure names it, managed by the VM.
 */
function osDisk(m: ArmModel, rg: string, vmName: string, vm: Json, body: Json): Json {
  const d = body.properties?.storageProfile?.osDisk ?? {};
  const name = d.name ?? `${vmName}_OsDisk_1_${crypto.randomUUID().replace(/-/g, '')}`;
  const diskId = `${m.groupId(rg)}/providers/Microsoft.Compute/disks/${name}`;
  const sku = d.managedDisk?.storageAccountType ?? 'Premium_LRS';
  m.put({
    id: diskId, name, type: 'Microsoft.Compute/disks', location: vm.location, managedBy: vm.id, sku: { name: sku },
    properties: { osType: 'Linux', diskSizeGB: d.diskSizeGB ?? 30, diskState: 'Attached', provisioningState: 'Succeeded' },
  });
  return { ...d, osType: 'Linux', name, managedDisk: { ...(d.managedDisk ?? {}), id: diskId } };
}

/**
 * Deleting a VM takes along what its deleteOptions name, per the Compute spec (ComputeRP
 * stable 2024-07-01): a NIC when NetworkInterfaceReferenceProperties.deleteOption
 * is Delete (default Detach); the OS disk when OSDisk.deleteOption is Delete (default Detach
 * for a managed disk). A public IP goes with its deleted NIC only when the NIC's reference to
 * it says Delete (network.ts). Whatever is detached stays, unattached, and bills.
 */
export function deleteVm(m: ArmModel, vm: Json): AsyncOp {
  vm.properties.provisioningState = 'Deleting';
  return m.op(3, () => {
    m.remove(vm.id);
    for (const ref of vm.properties.networkProfile?.networkInterfaces ?? []) {
      const nic = m.get(ref.id);
      if (!nic) continue;
      if (ref.properties?.deleteOption === 'Delete') removeNetwork(m, nic, true);
      else delete nic.properties.virtualMachine;
    }
    const os = vm.properties.storageProfile?.osDisk;
    const disk = os?.managedDisk?.id ? m.get(os.managedDisk.id) : undefined;
    if (disk && os.deleteOption === 'Delete') m.remove(disk.id);
    else if (disk) Object.assign(disk, { managedBy: undefined, properties: { ...disk.properties, diskState: 'Unattached' } });
  });
}

/** DELETE of a managed disk: refused while a VM uses it, as Compute does. */
export function deleteDisk(m: ArmModel, disk: Json): AsyncOp {
  if (disk.managedBy && m.get(disk.managedBy)) {
    throw new ArmError(409, 'OperationNotAllowed', `Disk ${disk.name} is attached to VM ${disk.managedBy}.`);
  }
  return m.op(1, () => m.remove(disk.id));
}

export function instanceView(vm: Json): Json {
  const prov = String(vm.properties.provisioningState).toLowerCase();
  const statuses: Json[] = [{ code: `ProvisioningState/${prov}`, level: prov === 'failed' ? 'Error' : 'Info', displayStatus: `Provisioning ${prov}` }];
  if (vm._power) statuses.push({ code: `PowerState/${vm._power}`, level: 'Info', displayStatus: `VM ${vm._power}` });
  return { computerName: vm.properties.osProfile?.computerName, osName: 'ubuntu', osVersion: '22.04', statuses };
}
