// What a managed job's current cluster costs per hour, from the instance catalog: the region's
// cached listing (prices joined in) first, else the shipped table. Unknown is said, never 0.
import type { ClusterRecord } from '../state';
import { providerHandle } from '../provision/handle';
import { catalogPath, defaultCatalogDir, readCatalog, awsShippedPrice } from '../catalog';
import { azureShippedPrice } from '../catalog/azureShipped';
import { gcpShippedPrice } from '../catalog/gcpShipped';

export type ClusterRate =
  | { kind: 'priced'; usdPerHour: number; /** "2 × m5.large on-demand, $0.096/h each" */ what: string }
  /** local/ssh: this or the user's own machines, no cloud charge. */
  | { kind: 'free'; why: string }
  | { kind: 'unknown'; why: string };

const SHIPPED: Record<string, (t: string) => number | undefined> = {
  aws: awsShippedPrice, azure: azureShippedPrice, gcp: (t) => gcpShippedPrice(t),
};

export function clusterRate(row: ClusterRecord | undefined, catalogDir = defaultCatalogDir()): ClusterRate {
  if (!row) return { kind: 'unknown', why: 'no cluster now' };
  if (row.provider === 'local' || row.provider === 'ssh') return { kind: 'free', why: `${row.provider} cluster: no cloud charge` };
  let placement;
  try {
    placement = providerHandle(row).placement;
  } catch {
    return { kind: 'unknown', why: 'the cluster\'s handle does not parse' };
  }
  const type = placement.instanceType;
  if (!type) return { kind: 'unknown', why: 'the instance type was not recorded' };
  const listed = row.region ? readCatalog(catalogPath(catalogDir, row.provider, row.region), Date.now(), Infinity)?.types.find((t) => t.name === type) : undefined;
  const each = placement.useSpot ? listed?.spotPrice : (listed?.price ?? SHIPPED[row.provider]?.(type));
  if (each === undefined || !Number.isFinite(each) || each <= 0) {
    return { kind: 'unknown', why: `no ${placement.useSpot ? 'spot ' : ''}price for ${type} in the catalog` };
  }
  const n = Math.max(1, row.num_nodes);
  return { kind: 'priced', usdPerHour: each * n, what: `${n} × ${type} ${placement.useSpot ? 'spot' : 'on-demand'}, $${each}/h each` };
}
