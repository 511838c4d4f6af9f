// What a managed job's current cluster costs per hour: the same PriceBook and cluster rate as
// the tree and `status` (cost/clusterRate.ts), said in the managed view's terms. Unknown is
// said, never 0.
import type { ClusterRecord } from '../state';
import { defaultCatalogDir } from '../catalog';
import { clusterRate as rateOf, formatRate, isKnown, PriceBook } from '../cost';

export type ClusterRate =
  | { kind: 'priced'; usdPerHour: number; /** "2 × m5.large on-demand, $0.096/h each" */ what: string }
  /** local/ssh: this or the user's own machines, no cloud charge. */
  | { kind: 'free'; why: string }
  | { kind: 'unknown'; why: string };

export function clusterRate(row: ClusterRecord | undefined, catalogDir = defaultCatalogDir()): ClusterRate {
  if (!row) return { kind: 'unknown', why: 'no cluster now' };
  const r = rateOf(row, new PriceBook(catalogDir));
  if (!r.billed) return { kind: 'free', why: `${row.provider} cluster: no cloud charge` };
  if (!isKnown(r.running) || !isKnown(r.perNode)) {
    return { kind: 'unknown', why: 'unknown' in r.perNode ? r.perNode.unknown : 'no price for the cluster' };
  }
  const type = `${r.instanceType}${r.estimatedType ? ' (estimated from the shape)' : ''}`;
  return { kind: 'priced', usdPerHour: r.running.usdPerHour, what: `${r.nodes} × ${type} ${r.spot ? 'spot' : 'on-demand'}, ${formatRate(r.perNode)} each` };
}
