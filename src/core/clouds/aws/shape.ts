import type { Placement, RunRequest } from '../provider';
import type { AcceleratorOption, Quantity } from '../../task/types';
import { chooseType, describeShape, type InstanceType } from '../../catalog';
import { ProviderError } from '../provider';

/**
 * What a node should look like. provider.ts's RunRequest carries only placement.instanceType,
 * so the rest rides along optionally on the request or its placement (see the report: adding
 * `resources` to RunRequest/Placement makes this first-class). Absent fields mean defaults.
 */
export interface LaunchShape {
  cpus?: Quantity;
  memory?: Quantity;
  accelerators?: AcceleratorOption[];
  /** Root disk, GB. */
  diskSize?: number;
  imageId?: string | Record<string, string>;
}

export type AwsRunRequest = RunRequest & { resources?: LaunchShape; placement: Placement & { resources?: LaunchShape } };

/** SkyPilot's default root disk; large enough for conda envs and model downloads. */
export const DEFAULT_DISK_GB = 256;

export function shapeOf(req: RunRequest): LaunchShape {
  const r = req as AwsRunRequest;
  return { ...(r.resources ?? {}), ...(r.placement.resources ?? {}) };
}

/** Graviton families (m6g, c7gn, t4g, g5g, ...) need an arm64 image. */
export function archOfName(name: string): 'x86_64' | 'arm64' {
  return /^[a-z]+\d+g[a-z]*\./.test(name) ? 'arm64' : 'x86_64';
}

/** The instance type to launch: the placement's, else the cheapest catalog fit of the shape. */
export function pickInstanceType(placement: Placement, shape: LaunchShape, catalog: readonly InstanceType[]): InstanceType {
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
