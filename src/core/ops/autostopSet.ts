import type { ClusterRecord } from '../state';
import { teardownUnderWay } from '../provision';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { requireCluster } from './findCluster';
import { autostopPlan } from './autostopPlan';
import { agentAutostop } from './agentAutostop';
import { readHandle } from './clusterHandle';
import { DEFAULT_IDLE_MINUTES } from './autostopOf';
import { updateCluster } from './provisionReachable';
import { rowSpotStopProblem } from './spotStop';

// `sky autostop CLUSTER -i MIN [--down] | --cancel` on a running cluster: the head's agent gets
// the new setting (configure.autostop) and the row records it, so a later start hands it on.

export interface AutostopChange {
  /** Idle minutes (default 5, as sky); ignored with cancel. */
  idleMinutes?: number;
  down?: boolean;
  cancel?: boolean;
}

/**
 * What the cluster's instances were made for decides what can change without a relaunch
 * (autostopPlan.ts): an AWS instance's shutdown behaviour (stop or terminate) is set at
 * RunInstances; a GCP head deletes instances only as the autodown identity made at launch; an
 * Azure head needs the identity (and its role: deallocate or delete) made at launch.
 */
export function changeProblem(row: ClusterRecord, down: boolean): string | undefined {
  const launchedDown = row.autostop_down === 1;
  const relaunch = `relaunch the cluster with${down ? ' --down' : 'out --down'}`;
  switch (row.provider) {
    case 'aws': {
      const spot = rowSpotStopProblem(row);
      if (spot && !down) return `${spot}; use --down`;
      if (spot) return undefined;
      return down === launchedDown ? undefined
        : `its instances were launched to ${launchedDown ? 'terminate' : 'stop'} when they shut down; to ${down ? 'tear it down' : 'stop it'} instead, ${relaunch}`;
    }
    case 'gcp':
      return down && !launchedDown ? `its head has no identity that may delete instances (made only for a launch with --down); ${relaunch}` : undefined;
    case 'azure':
      if (row.autostop_minutes === null && !launchedDown) return 'its head was launched without autostop, so it has no identity to deallocate itself; relaunch it with -i';
      return down === launchedDown ? undefined : `its head's role was made to ${launchedDown ? 'delete' : 'deallocate'} the cluster; ${relaunch}`;
    case 'kubernetes':
      return down && !launchedDown ? `its head pod has no identity that may delete pods (made only for a launch with --down); ${relaunch}` : undefined;
    default:
      return undefined;
  }
}

export async function setAutostop(ctx: OpsContext, name: string, change: AutostopChange): Promise<ClusterRecord> {
  const row = await requireCluster(ctx, name);
  const busy = teardownUnderWay(row);
  if (busy) throw new OpsError('failed', busy);
  const client = ctx.connections.client(row);
  if (change.cancel) {
    await client.configure({ autostop: null });
    // autostop_down stays: it still says what the instances were made for (changeProblem).
    return updateCluster(ctx, row, { autostop_minutes: null }, { kind: 'autostop', message: 'autostop cancelled' });
  }
  const down = !!change.down;
  const plan = autostopPlan(row.provider, down);
  if (!plan.ok) throw new OpsError('usage', `cannot set autostop on ${name}: ${plan.why}`);
  const problem = changeProblem(row, down);
  if (problem) throw new OpsError('usage', `cannot set autostop${down ? ' --down' : ''} on ${name}: ${problem}`);
  const minutes = change.idleMinutes ?? DEFAULT_IDLE_MINUTES;
  // The launch's setting with the new values (a controller cluster keeps its managed-jobs store).
  const autostop = agentAutostop({ ...row, autostop_minutes: minutes, autostop_down: down ? 1 : 0 }, !!readHandle(row).kube)!;
  await client.configure({ autostop });
  return updateCluster(ctx, row, { autostop_minutes: minutes, autostop_down: down ? 1 : 0 }, {
    kind: 'autostop', message: `autostop after ${minutes} idle minutes${down ? ' (down)' : ''}`,
  });
}
