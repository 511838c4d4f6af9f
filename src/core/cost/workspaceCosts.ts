import type { Database } from 'sql.js';
import { listClusters, type ClusterRecord, type StateSnapshot } from '../state';
import type { OpsContext } from '../ops/context';
import { isKnown, sum, type PriceAnswer } from './price';
import { PriceBook } from './priceBook';
import { clusterCost, currentRate, type ClusterCost } from './spend';
import { publishWorkspace, type IndexedCluster } from './userIndex';

export interface CostedCluster extends ClusterCost {
  cluster: ClusterRecord;
  /** What its current status bills per hour (running nodes, or disks while stopped). */
  now: PriceAnswer;
}

export interface WorkspaceCosts {
  workspaceId?: string;
  clusters: CostedCluster[];
  /** Sum of every cluster's current rate; unknown if any billed one is. */
  total: PriceAnswer;
}

function existingWorkspaceId(db: Database): string | undefined {
  const v = db.exec("SELECT value FROM meta WHERE key = 'workspace_id'")[0]?.values[0]?.[0];
  return typeof v === 'string' ? v : undefined;
}

/** Rates and spend of every cluster of the workspace, from its state alone (no network). */
export async function workspaceCosts(ctx: { store: Pick<StateSnapshot, 'read'>; clock?: OpsContext['clock'] }, book = new PriceBook()): Promise<WorkspaceCosts> {
  const now = ctx.clock?.now() ?? Date.now();
  return ctx.store.read((db) => {
    const clusters = listClusters(db).map((cluster): CostedCluster => {
      const c = clusterCost(db, cluster, book, now);
      return { cluster, ...c, now: currentRate(cluster, c.rate) };
    });
    const total = sum(clusters.filter((c) => c.rate.billed).map((c) => c.now));
    return { workspaceId: existingWorkspaceId(db), clusters, total };
  });
}

/**
 * Puts this workspace's clusters in the per-user index (userIndex.ts). Best-effort: the index
 * is a convenience for other windows, so a failure is logged, never thrown.
 */
export function publishCosts(ctx: Pick<OpsContext, 'workspaceRoot' | 'log'>, costs: WorkspaceCosts, home?: string): void {
  if (!costs.workspaceId) return;
  try {
    const clusters: IndexedCluster[] = costs.clusters.map(({ cluster: c, now }) => ({
      name: c.name, uid: c.uid, provider: c.provider, region: c.region, status: c.status,
      ...(isKnown(now) ? { usdPerHour: now.usdPerHour } : {}), autostopMinutes: c.autostop_minutes,
    }));
    publishWorkspace({ version: 1, workspaceId: costs.workspaceId, folder: ctx.workspaceRoot, updatedAt: Date.now(), clusters }, home);
  } catch (e) {
    ctx.log(`could not update the per-user cluster index: ${(e as Error).message}`);
  }
}
