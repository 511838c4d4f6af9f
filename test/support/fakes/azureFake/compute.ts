// Microsoft.Compute/virtualMachines as ARM validates and runs them: synchronous 4xx for a bad
// request (size, image, NIC reference, quota, restricted SKU), then an async operation that may
// end AllocationFailed; power state moves through starting/deallocating/... over time.
import { allocationFailed, ArmError, badReference, imageNotFound, invalidSize, quotaExceeded, skuNotAvailable } from './bodies';
import { IMAGES, SIZES, type ArmModel, type AsyncOp, type Json } from './model';

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
  const spot = p.priority === 'Spot';
  const quota = spot ? m.spotQuota : m.coreQuota;
  const want = SIZES[size].cores;
  if (quota !== undefined && m.coresUsed(location, spot) + want > quota) {
    throw quotaExceeded(spot ? 'LowPriorityCores' : SIZES[size].family, location, quota, m.coresUsed(location, spot), want);
  }
  const existing = m.get(id);
  const vm = existing ?? { id, name, type: 'Microsoft.Compute/virtualMachines' };
  Object.assign(vm, { location, tags: body.tags ?? {}, ...(body.zones ? { zones: body.zones } : {}) });
  const identity = m.identities.vmIdentity(body.identity, existing?.identity);
  if (identity) vm.identity = identity;
  const { adminPassword: _secret, ...osProfile } = p.osProfile ?? {};
  vm.properties = {
    ...p, osProfile, vmId: vm.properties?.vmId ?? crypto.randomUUID(), timeCreated: vm.properties?.timeCreated ?? new Date().toISOString(),
    provisioningState: existing ? 'Updating' : 'Creating',
  };
  m.put(vm);
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

/** Deleting a VM takes the NICs, public IPs and OS disk whose deleteOption says so. */
export function deleteVm(m: ArmModel, vm: Json): AsyncOp {
  vm.properties.provisioningState = 'Deleting';
  return m.op(3, () => {
    m.remove(vm.id);
    for (const ref of vm.properties.networkProfile?.networkInterfaces ?? []) {
      if ((ref.properties?.deleteOption ?? ref.deleteOption) !== 'Delete') continue;
      const nic = m.get(ref.id);
      for (const cfg of nic?.properties?.ipConfigurations ?? []) {
        const ip = cfg.properties?.publicIPAddress;
        if (ip?.id && ip.properties?.deleteOption === 'Delete') m.remove(ip.id);
      }
      if (nic) m.remove(nic.id);
    }
  });
}

export function instanceView(vm: Json): Json {
  const prov = String(vm.properties.provisioningState).toLowerCase();
  const statuses: Json[] = [{ code: `ProvisioningState/${prov}`, level: prov === 'failed' ? 'Error' : 'Info', displayStatus: `Provisioning ${prov}` }];
  if (vm._power) statuses.push({ code: `PowerState/${vm._power}`, level: 'Info', displayStatus: `VM ${vm._power}` });
  return { computerName: vm.properties.osProfile?.computerName, osName: 'ubuntu', osVersion: '22.04', statuses };
}
