import type { AcceleratorOption, Quantity } from '../task/types';

/**
 * What each node of a placement should have, from the task (absent: the cloud's default).
 * One type for every cloud: the provision loop fills it (provision/candidates.ts) and each
 * provider builds its nodes from it.
 */
export interface NodeShape {
  cpus?: Quantity;
  memory?: Quantity;
  accelerators?: AcceleratorOption[];
  /** Root (boot) disk, GB. */
  diskSize?: number;
  /** One image, or one per region, in the cloud's own form (AMI id, GCE image, Azure URN or id). */
  imageId?: string | Record<string, string>;
}

/** SkyPilot's default root disk, GB, on every cloud: large enough for conda envs and model downloads. */
export const DEFAULT_DISK_GB = 256;

/** The shape a run request asks for; all defaults when the task named none. */
export function shapeOf(req: { placement: { resources?: NodeShape } }): NodeShape {
  return req.placement.resources ?? {};
}
