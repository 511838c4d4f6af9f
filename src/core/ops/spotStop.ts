// AWS spot instances cannot be stopped: Skydeck asks for one-time spot instances, which the
// cloud terminates when they shut down (aws/launch.ts). A stop or an autostop that is not a
// down would lose the cluster while the row expected STOPPED, so both are refused up front.
import type { ClusterRecord } from '../state';
import { providerHandle } from '../provision/handle';

export const SPOT_NO_STOP = 'AWS spot instances cannot be stopped (they terminate when they shut down)';

/** Why this cloud's spot cluster cannot be stopped, or undefined when it can. */
export function spotStopProblem(cloud: string, useSpot: boolean | undefined): string | undefined {
  return cloud === 'aws' && useSpot ? SPOT_NO_STOP : undefined;
}

/** The same for an existing cluster, from the placement its row recorded. */
export function rowSpotStopProblem(row: ClusterRecord): string | undefined {
  try {
    return spotStopProblem(row.provider, providerHandle(row).placement.useSpot);
  } catch {
    return undefined;
  }
}
