import type { InstanceInfo, InstanceStatus } from '../provider';
import { gcpShippedPrice } from '../../catalog/gcpShipped';
import { tagsFrom, TAGS_METADATA_KEY } from './labels';
import type { Instance } from './types';
import { lastSegment, regionOfZone } from './zones';

export type GcpInstance = Instance;

/** Label marking the head node, set at creation (GCP creates one instance per call). */
export const LABEL_HEAD = 'skydeck-head';

/**
 * Every value of Instance.status in the Compute v1 API (discovery doc `Instance.status` enum), each mapped on purpose. A VM deleted for good is absent from
 * listings, which the core reads as terminated; no status here means gone.
 */
export const GCE_STATUS = {
  // Alive and on its way to RUNNING (PENDING: a Flex-start VM waiting for capacity; REPAIRING:
  // GCE is repairing its host and brings it back to RUNNING).
  PROVISIONING: 'pending', STAGING: 'pending', PENDING: 'pending', REPAIRING: 'pending',
  RUNNING: 'running',
  // Halting, for a stop, a suspend or a delete: not stopped yet and not gone yet. DEPROVISIONING
  // ("tear down tasks like network deprogramming, releasing quota, IP, tearing down disks") is
  // still a listed VM: a delete is proven only by its absence.
  PENDING_STOP: 'stopping', STOPPING: 'stopping', SUSPENDING: 'stopping', DEPROVISIONING: 'stopping',
  // Stopped: disks kept (and billed), no compute billed. TERMINATED is GCE's usual word for a
  // stopped VM; STOPPED ("stopped successfully") means the same to Skydeck. A SUSPENDED VM also
  // keeps its memory; it comes back with instances.resume, not instances.start.
  TERMINATED: 'stopped', STOPPED: 'stopped', SUSPENDED: 'stopped',
} as const satisfies Record<string, InstanceStatus>;

export type GceStatus = keyof typeof GCE_STATUS;

/**
 * GCP status → Skydeck status. A value this table lacks (a newer API than Skydeck, or none at
 * all) is "unknown": live for the sweep and the down proof, never running, never stopped.
 */
export function statusOf(s: string | null | undefined): InstanceStatus {
  return s && Object.hasOwn(GCE_STATUS, s) ? GCE_STATUS[s as GceStatus] : 'unknown';
}

/** The call that brings a stopped VM back: start for TERMINATED/STOPPED, resume for SUSPENDED. */
export function wakeCall(s: string | null | undefined): 'start' | 'resume' | undefined {
  if (s === 'SUSPENDED') return 'resume';
  return s === 'TERMINATED' || s === 'STOPPED' ? 'start' : undefined;
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
    tags: tagsFrom(i.labels, metadataValue(i, TAGS_METADATA_KEY)),
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
