import { getCluster, type ClusterRecord } from '../state';
import type { Task } from '../task';
import { describePlacement, placementsOf } from '../provision';
import type { OpsContext } from './context';
import { checkClusterName, generateClusterName } from './clusterNames';
import { loadTaskForRun, type TaskInput } from './loadTask';
import { checkSyncSources } from './syncFiles';
import { syncPlanLines } from './taskPaths';
import { autostopPlan } from './autostopPlan';
import { pricePlacement, priceText } from './planPrice';

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
  /** Each candidate in the order tried, with its type and price (or why unknown). */
  candidates: { where: string; instanceType?: string; price: string }[];
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
  const candidates = (mine.length ? mine : [{ cloud, useSpot: task.resources.useSpot }]).map((p) => {
    const priced = pricePlacement(p);
    return { where: describePlacement(p), instanceType: priced.instanceType, price: priceText(priced, task.numNodes) };
  });
  if (mine.length < all.length) warnings.push(`only the ${cloud} candidates would be tried; ${all.length - mine.length} on other clouds are skipped`);
  if (req.idleMinutes !== undefined || req.down) {
    const plan = autostopPlan(cloud, !!req.down);
    if (!plan.ok) warnings.push(`autostop would not be set: ${plan.why}`);
  }
  return {
    cluster: name, cloud, numNodes: task.numNodes,
    ...(existing ? { existing: existing.status } : {}),
    candidates,
    sync: syncPlanLines(task, dir),
    setup: !task.setup ? 'none in the task' : req.noSetup ? 'skipped (--no-setup)' : 'runs',
    warnings,
  };
}
