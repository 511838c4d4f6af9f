import { getCluster, type ClusterRecord } from '../state';
import type { Task } from '../task';
import { describePlacement, placementsOf } from '../provision';
import type { OpsContext } from './context';
import { checkClusterName, generateClusterName } from './clusterNames';
import { loadTaskForRun, type TaskInput } from './loadTask';
import { checkSyncSources } from './syncFiles';
import { syncPlanLines } from './taskPaths';
import { autostopPlan } from './autostopPlan';
import { launchPlan as costPlan, PriceBook, type LaunchPlan as PricedPlan } from '../cost';

/**
 * The cloud a launch goes to: --cloud, the task's, the existing cluster's, the first candidate's,
 * then the caller's default (the editor's skydeck.defaultCloud), else local.
 */
export function cloudFor(req: { cloud?: string; defaultCloud?: string }, task: Task, existing: ClusterRecord | undefined): string {
  const firstCloud = placementsOf(task.resources)[0]?.cloud || undefined;
  return (req.cloud ?? task.resources.cloud ?? existing?.provider ?? firstCloud ?? (req.defaultCloud || undefined) ?? 'local').toLowerCase();
}

/** What `launch --dryrun` shows: nothing here creates, connects or uploads. */
export interface LaunchPlan {
  cluster: string;
  cloud: string;
  /** Set when the cluster exists and would be reused (or started). */
  existing?: string;
  numNodes: number;
  /** Each candidate in the order tried. */
  candidates: { where: string }[];
  /** The optimizer's table: what launch picks and the cheapest alternatives, priced (core/cost). */
  priced: PricedPlan;
  /** What would be uploaded or fetched, with local paths resolved. */
  sync: string[];
  setup: 'runs' | 'skipped (--no-setup)' | 'none in the task';
  warnings: string[];
}

export interface PlanRequest extends TaskInput {
  cluster?: string;
  cloud?: string;
  defaultCloud?: string;
  idleMinutes?: number;
  down?: boolean;
  noSetup?: boolean;
}

export async function launchPlan(ctx: OpsContext, req: PlanRequest): Promise<LaunchPlan> {
  const { task, dir, warnings } = await loadTaskForRun(req);
  const name = req.cluster ?? generateClusterName(ctx.user);
  checkClusterName(name);
  checkSyncSources(task, dir);
  const existing = await ctx.store.read((db) => getCluster(db, name));
  const cloud = cloudFor(req, task, existing);
  const all = placementsOf(task.resources, req.cloud?.toLowerCase()).map((p) => ({ ...p, cloud: p.cloud || cloud }));
  const mine = all.filter((p) => p.cloud === cloud);
  const candidates = (mine.length ? mine : [{ cloud, useSpot: task.resources.useSpot }]).map((p) => ({ where: describePlacement(p) }));
  if (mine.length < all.length) warnings.push(`only the ${cloud} candidates would be tried; ${all.length - mine.length} on other clouds are skipped`);
  if (req.idleMinutes !== undefined || req.down) {
    const plan = autostopPlan(cloud, !!req.down);
    if (!plan.ok) warnings.push(`autostop would not be set: ${plan.why}`);
  }
  return {
    cluster: name, cloud, numNodes: task.numNodes,
    ...(existing ? { existing: existing.status } : {}),
    candidates,
    priced: pricedPlan(task, cloud, req),
    sync: syncPlanLines(task, dir),
    setup: !task.setup ? 'none in the task' : req.noSetup ? 'skipped (--no-setup)' : 'runs',
    warnings,
  };
}

/**
 * The priced plan of a launch to `cloud` (cloudFor): the one function `launch --dryrun`, the
 * table `launch` prints before provisioning and the editor's Launch confirmation use. The cloud
 * goes to every candidate only when --cloud says so or the task names none (then launch runs
 * it there); a task's own clouds stay, the other clouds' fits showing as alternatives.
 */
export function pricedPlan(task: Task, cloud: string, req: { cloud?: string; region?: string }, book = new PriceBook()): PricedPlan {
  const named = placementsOf(task.resources).some((p) => p.cloud);
  return costPlan(task, book, { cloud: req.cloud?.toLowerCase() ?? (named ? undefined : cloud), region: req.region });
}
