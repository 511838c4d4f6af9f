import type { NodeShape, Placement } from '../provider';
import { ProviderError } from '../provider';
import type { AcceleratorOption } from '../../task/types';
import { chooseType, describeShape, type InstanceType } from '../../catalog';
import { GCP_GUEST_ACCELERATORS, GCP_SHIPPED, gcpAttachesGpus } from '../../catalog/gcpShipped';

export interface Machine {
  machineType: string;
  /** Attached GPUs (N1 machines only); built-in GPUs (a2/a3/g2) need none. */
  guest?: { acceleratorType: string; count: number };
  gpu: boolean;
}

/** The machine to launch: the placement's type (with the task's GPU attached on N1), else the cheapest fit. */
export function pickMachine(placement: Placement, shape: NodeShape, catalog: readonly InstanceType[] = GCP_SHIPPED): Machine {
  const acc = shape.accelerators?.[0];
  if (placement.instanceType) return withGuest(placement.instanceType, acc && { name: acc.name, count: Math.ceil(acc.count) });
  const accs: (AcceleratorOption | undefined)[] = shape.accelerators?.length ? shape.accelerators : [undefined];
  for (const accelerator of accs) {
    const t = chooseType(catalog, { cpus: shape.cpus, memory: shape.memory, accelerator, useSpot: placement.useSpot });
    if (t) return withGuest(t.name, t.gpus);
  }
  const wanted = describeShape({ cpus: shape.cpus, memory: shape.memory, accelerator: acc });
  throw new ProviderError('capacity', `no GCP machine type offers ${wanted}${placement.region ? ` in ${placement.region}` : ''}`,
    'relax cpus/memory (use "N+" for "at least"), pick other accelerators, or set instance_type');
}

function withGuest(machineType: string, gpus: { name: string; count: number } | undefined): Machine {
  if (!gpus || !gcpAttachesGpus(machineType)) return { machineType, gpu: !!gpus || /^(a2|a3|g2)-/.test(machineType) };
  const acceleratorType = GCP_GUEST_ACCELERATORS[gpus.name.toUpperCase()];
  if (!acceleratorType) throw new ProviderError('config', `GPU ${gpus.name} cannot be attached to ${machineType} on GCP`, 'use T4 or V100 with n1 machines, or A100/H100/L4 machine types');
  return { machineType, guest: { acceleratorType, count: gpus.count }, gpu: true };
}

/** The image for a zone: `image_id` (one, or per region), else Ubuntu 22.04. */
export function imageFor(imageId: NodeShape['imageId'], region: string, fallback: string): string {
  if (!imageId) return fallback;
  if (typeof imageId === 'string') return imageId;
  return imageId[region] ?? fallback;
}
