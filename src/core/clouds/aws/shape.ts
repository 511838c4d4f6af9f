import type { NodeShape, Placement } from '../provider';
import type { AcceleratorOption } from '../../task/types';
import { chooseType, describeShape, type InstanceType } from '../../catalog';
import { ProviderError } from '../provider';

/** Graviton families (m6g, c7gn, t4g, g5g, ...) need an arm64 image. */
export function archOfName(name: string): 'x86_64' | 'arm64' {
  return /^[a-z]+\d+g[a-z]*\./.test(name) ? 'arm64' : 'x86_64';
}

/** The instance type to launch: the placement's, else the cheapest catalog fit of the shape. */
export function pickInstanceType(placement: Placement, shape: NodeShape, catalog: readonly InstanceType[]): InstanceType {
  if (placement.instanceType) {
    const known = catalog.find((t) => t.name === placement.instanceType);
    return known ?? { cloud: 'aws', name: placement.instanceType, vcpus: 0, memoryGb: 0, arch: archOfName(placement.instanceType) };
  }
  const accs: (AcceleratorOption | undefined)[] = shape.accelerators?.length ? shape.accelerators : [undefined];
  for (const accelerator of accs) {
    const t = chooseType(catalog, { cpus: shape.cpus, memory: shape.memory, accelerator, useSpot: placement.useSpot });
    if (t) return t;
  }
  const wanted = describeShape({ cpus: shape.cpus, memory: shape.memory, accelerator: shape.accelerators?.[0] });
  // Read as capacity: another region of the task's candidates may offer it.
  throw new ProviderError('capacity', `no AWS instance type offers ${wanted}${placement.region ? ` in ${placement.region}` : ''}`,
    'relax cpus/memory (use "N+" for "at least"), pick other accelerators, or set instance_type');
}
