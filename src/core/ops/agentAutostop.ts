import type { AgentClient, AutostopConfig } from '../jobs';
import type { ClusterRecord } from '../state';
import { readHandle } from './clusterHandle';
import type { OpsContext } from './context';
import { autostopPlan } from './autostopPlan';
import { CONTROLLER_CLUSTER, NODE_MANAGED_STORE } from './controllerNode';

/**
 * How long a launch holds its new cluster busy (agent autostop.py `hold_seconds`): the agent's
 * autostop is set while provisioning, so a client that dies mid-launch still leaves a cluster
 * that stops; but the job comes only after the workdir upload, bucket checks and setup
 * planning, and with -i 0 (or a small -i and a slow upload) the cluster stopped before it.
 * The launch lifts the hold once its job is in (or it failed); this is the bound for one that
 * died: long enough for a large upload, short next to the idle time a forgotten cluster bills.
 */
export const LAUNCH_HOLD_SECONDS = 30 * 60;

type AutostopRow = Pick<ClusterRecord, 'name' | 'provider' | 'autostop_minutes' | 'autostop_down'>;

/**
 * The head agent's autostop setting for a cluster row, as a launch's bootstrap sets it and as
 * the launch sets it again to lift its hold; undefined when the row has no autostop or its
 * cloud never stops clusters (autostopPlan.ts).
 */
export function agentAutostop(row: AutostopRow, onKubernetes: boolean, holdSeconds = 0): AutostopConfig | undefined {
  if (row.autostop_minutes === null) return undefined;
  const plan = autostopPlan(row.provider, row.autostop_down === 1);
  if (!plan.ok) return undefined;
  // A controller cluster on a cloud is busy while its managed jobs are unfinished (controllerNode.ts).
  const managed = CONTROLLER_CLUSTER.test(row.name) && !onKubernetes ? { managed_jobs_db: NODE_MANAGED_STORE } : {};
  return {
    idle_minutes: row.autostop_minutes, down: row.autostop_down === 1, action: plan.action, ...managed,
    ...(holdSeconds > 0 ? { hold_seconds: holdSeconds } : {}),
  };
}

/**
 * Lifts a launch's hold: the same setting again, without it (the agent's idle clock restarts).
 * Never throws — it runs in a launch's finally — but says what failed: the hold then simply
 * runs out, LAUNCH_HOLD_SECONDS after the bootstrap.
 */
export async function liftLaunchHold(ctx: OpsContext, client: AgentClient, row: ClusterRecord): Promise<void> {
  const autostop = agentAutostop(row, !!readHandle(row).kube);
  if (!autostop) return;
  try {
    await client.configure({ autostop });
  } catch (e) {
    ctx.warn(`${row.name}: could not lift the launch's autostop hold (${(e as Error).message}); autostop counts idle time from ${LAUNCH_HOLD_SECONDS / 60} minutes after the cluster came up`);
  }
}
