import type { OpsContext } from '../ops/context';
import { formatRate, formatUsd, isKnown } from './price';
import { otherBilling, readIndex } from './userIndex';
import { publishCosts, workspaceCosts } from './workspaceCosts';

/** One cluster's cost as the editor shows it (text already formatted, see price.ts). */
export interface ClusterCostText {
  billed: boolean;
  /** "$3.06/h" or "unknown". */
  rate: string;
  /** "$12.40" or "unknown". */
  spend: string;
  /** Tooltip lines: type, per node, source and date, or why unknown. */
  detail: string[];
}

export interface CostView {
  byUid: Record<string, ClusterCostText>;
  /** This workspace's total $/h ("unknown" if one billed cluster's price is). */
  totalRate: string;
  totalUsdPerHour?: number;
  others: { clusters: number; folders: number; usdPerHour: number; unknown: number; workspaces: { folder: string; clusters: string[]; usdPerHour: number }[] };
}

/**
 * What the Clusters view and the status bar show of cost, computed from this machine's state
 * and price tables (no network), with this workspace's entry of the per-user index refreshed
 * and the other workspaces' entries read.
 */
export async function costView(ctx: Pick<OpsContext, 'store' | 'clock' | 'workspaceRoot' | 'log'>, home?: string): Promise<CostView> {
  const w = await workspaceCosts(ctx);
  publishCosts(ctx, w, home);
  const byUid: Record<string, ClusterCostText> = {};
  for (const c of w.clusters) {
    const r = c.rate;
    const src = (p: typeof r.perNode) => (isKnown(p) ? `${formatRate(p)} (${p.source}, ${p.asOf})` : `unknown: ${p.unknown}`);
    const detail = r.billed
      ? [
        `${r.instanceType ?? 'type unknown'}${r.estimatedType ? ' (estimated from the shape)' : ''}${r.spot ? ', spot' : ''} × ${r.nodes}`,
        `per node: ${src(r.perNode)}`, `running: ${formatRate(r.running)}; stopped (disks): ${formatRate(r.stopped)}`,
        `so far: ${formatUsd(c.spentUsd)} (${Math.round(c.time.runningMs / 60_000)} min running, ${Math.round(c.time.stoppedMs / 60_000)} min stopped)${c.unknown ? `; ${c.unknown}` : ''}`,
      ]
      : [r.perNode && isKnown(r.perNode) ? r.perNode.source : 'not billed through a cloud'];
    byUid[c.cluster.uid] = { billed: r.billed, rate: formatRate(c.now), spend: formatUsd(c.spentUsd), detail };
  }
  const idx = readIndex(w.workspaceId, home);
  for (const r of idx.refused) ctx.log(`per-user cluster index: refused ${r}`);
  const billing = idx.workspaces.filter((x) => x.folder !== ctx.workspaceRoot);
  const sums = otherBilling(billing);
  return {
    byUid, totalRate: formatRate(w.total), ...(isKnown(w.total) ? { totalUsdPerHour: w.total.usdPerHour } : {}),
    others: {
      ...sums,
      workspaces: billing.map((x) => ({
        folder: x.folder, clusters: x.clusters.map((c) => c.name), usdPerHour: x.clusters.reduce((s, c) => s + (c.usdPerHour ?? 0), 0),
      })).filter((x) => x.clusters.length),
    },
  };
}
