import type { protos } from '@google-cloud/compute';
import type { InstanceInfo, InstanceStatus } from '../provider';
import { gcpShippedPrice } from '../../catalog/gcpShipped';
import { tagsFrom, TAGS_METADATA_KEY } from './labels';
import { lastSegment, regionOfZone } from './zones';

export type GcpInstance = protos.google.cloud.compute.v1.IInstance;

/** Label marking the head node, set at creation (GCP creates one instance per call). */
export const LABEL_HEAD = 'skydeck-head';

// TERMINATED is GCP's word for a stopped VM (its disks are kept and billed). A deleted VM is
// simply absent from listings, which the core reads as terminated.
const STATUS: Record<string, InstanceStatus> = {
  PROVISIONING: 'pending', STAGING: 'pending', REPAIRING: 'pending', RUNNING: 'running',
  STOPPING: 'stopping', SUSPENDING: 'stopping', TERMINATED: 'stopped', SUSPENDED: 'stopped',
};

/** GCP status → Skydeck status; an unknown one is pending (alive, not ready). */
export function statusOf(s: string | null | undefined): InstanceStatus {
  return (s && STATUS[s]) || 'pending';
}

export function metadataValue(i: GcpInstance, key: string): string | undefined {
  return i.metadata?.items?.find((m) => m.key === key)?.value ?? undefined;
}

export function infoOf(i: GcpInstance): InstanceInfo {
  const zone = lastSegment(i.zone);
  const info: InstanceInfo = {
    id: i.name ?? '?',
    status: statusOf(i.status),
    zone,
    region: regionOfZone(zone),
    launchedAt: i.creationTimestamp ? Date.parse(i.creationTimestamp) || 0 : 0,
    tags: tagsFrom(i.labels as Record<string, string> | undefined, metadataValue(i, TAGS_METADATA_KEY)),
  };
  const type = lastSegment(i.machineType);
  if (type) info.instanceType = type;
  const acc = i.guestAccelerators?.[0];
  const gpus = acc ? { name: gpuNameOf(lastSegment(acc.acceleratorType)), count: acc.acceleratorCount ?? 1 } : undefined;
  const price = gcpShippedPrice(type, gpus);
  if (price !== undefined) info.costPerHour = price;
  const nic = i.networkInterfaces?.[0];
  const pub = nic?.accessConfigs?.find((a) => a.natIP)?.natIP;
  if (pub) info.publicIp = pub;
  if (nic?.networkIP) info.privateIp = nic.networkIP;
  return info;
}

/** "nvidia-tesla-t4" → "T4", "nvidia-l4" → "L4". */
export function gpuNameOf(acceleratorType: string): string {
  return acceleratorType.replace(/^nvidia-(tesla-)?/, '').toUpperCase();
}
