import type { VirtualMachine, VirtualMachineInstanceView } from '@azure/arm-compute';
import type { InstanceInfo, InstanceStatus } from '../provider';
import { azureShippedPrice } from '../../catalog/azureShipped';

// A VM's state is two things on Azure: provisioningState (of the ARM resource: Creating,
// Succeeded, Failed, Deleting) and the power state in its instance view (PowerState/…).
// "stopped" is powered off but still allocated (and billed); Skydeck stops by deallocating,
// but a VM someone powered off is still reported stopped, as it is not running.
const POWER: Record<string, InstanceStatus> = {
  starting: 'pending', running: 'running', stopping: 'stopping', deallocating: 'stopping', stopped: 'stopped', deallocated: 'stopped',
};

export function powerStateOf(view: VirtualMachineInstanceView | undefined): string | undefined {
  return view?.statuses?.find((s) => s.code?.startsWith('PowerState/'))?.code?.slice('PowerState/'.length);
}

export function statusOf(provisioningState: string | undefined, power: string | undefined): InstanceStatus {
  if (provisioningState === 'Deleting') return 'terminating';
  if (power && POWER[power]) return POWER[power];
  // No power state yet: being created. A VM whose creation failed holds no hardware.
  return provisioningState === 'Failed' ? 'stopped' : 'pending';
}

export function infoOf(vm: VirtualMachine, view: VirtualMachineInstanceView | undefined, ips?: { publicIp?: string; privateIp?: string }): InstanceInfo {
  const info: InstanceInfo = {
    id: vm.name ?? '?',
    status: statusOf(vm.provisioningState, powerStateOf(view ?? vm.instanceView)),
    region: vm.location,
    launchedAt: vm.timeCreated ? new Date(vm.timeCreated).getTime() : 0,
    tags: { ...(vm.tags ?? {}) },
  };
  if (vm.zones?.[0]) info.zone = vm.zones[0];
  const size = vm.hardwareProfile?.vmSize;
  if (size) info.instanceType = size;
  const price = azureShippedPrice(size);
  if (price !== undefined) info.costPerHour = price;
  if (ips?.publicIp) info.publicIp = ips.publicIp;
  if (ips?.privateIp) info.privateIp = ips.privateIp;
  return info;
}
