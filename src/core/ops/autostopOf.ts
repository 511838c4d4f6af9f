import type { Task } from '../task';
import type { OpsContext } from './context';
import { autostopPlan } from './autostopPlan';
import { OpsError } from './errors';
import { spotStopProblem } from './spotStop';

/** SkyPilot's default idle time when autostop is asked for without one. */
export const DEFAULT_IDLE_MINUTES = 5;

/**
 * The autostop to record on the row (the bootstrap hands it to the head's agent): from
 * --idle-minutes / --down, else the task's resources.autostop. A cloud that cannot do it
 * (autostopPlan.ts) gets none, with a warning saying why.
 */
export function autostopOf(ctx: OpsContext, cloud: string, task: Task, req: { idleMinutes?: number; down?: boolean }): { minutes: number | null; down: boolean } {
  const fromTask = task.resources.autostop?.enabled ? task.resources.autostop : undefined;
  const asked = req.idleMinutes !== undefined || req.down || fromTask;
  if (!asked) return { minutes: null, down: false };
  const down = req.down ?? fromTask?.down ?? false;
  const minutes = req.idleMinutes ?? fromTask?.idleMinutes ?? DEFAULT_IDLE_MINUTES;
  const spot = down ? undefined : spotStopProblem(cloud, task.resources.useSpot);
  if (spot) throw new OpsError('usage', `autostop must tear this cluster down: ${spot}; add --down (or autostop: {down: true}), or launch without spot`);
  const plan = autostopPlan(cloud, down);
  if (!plan.ok) {
    ctx.warn(`autostop is not set: ${plan.why}`);
    return { minutes: null, down: false };
  }
  return { minutes, down };
}
