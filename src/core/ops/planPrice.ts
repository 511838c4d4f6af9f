import { AWS_SHIPPED, chooseType, type InstanceType } from '../catalog';
import { GCP_SHIPPED } from '../catalog/gcpShipped';
import { AZURE_SHIPPED } from '../catalog/azureShipped';
import type { Placement } from '../clouds/provider';

// The $/h a dry run shows per candidate: from the catalog shipped with Skydeck (the prices
// the sweep uses too). A price the catalog does not hold is "unknown", never 0: spot prices are
// not shipped, and a type outside the table has none.

const SHIPPED: Record<string, readonly InstanceType[]> = { aws: AWS_SHIPPED, gcp: GCP_SHIPPED, azure: AZURE_SHIPPED };

export interface PricedPlacement {
  /** The instance type named, or the one the catalog would choose for the shape. */
  instanceType?: string;
  /** USD per hour per node; undefined when unknown. */
  perNode?: number;
  /** Why there is no type or price (said instead of a number). */
  note?: string;
}

export function pricePlacement(p: Placement): PricedPlacement {
  const table = SHIPPED[p.cloud];
  if (!table) return { note: p.cloud === 'local' || p.cloud === 'ssh' ? 'your own machines: not billed by a cloud' : 'unknown (no catalog for this cloud)' };
  const t = p.instanceType
    ? table.find((x) => x.name === p.instanceType)
    : chooseType(table, { cpus: p.resources?.cpus, memory: p.resources?.memory, accelerator: p.resources?.accelerators?.[0], useSpot: p.useSpot });
  if (!t) return { instanceType: p.instanceType, note: p.instanceType ? 'unknown (type not in the shipped catalog)' : 'unknown (no shipped type fits)' };
  const price = p.useSpot ? t.spotPrice : t.price;
  return price === undefined ? { instanceType: t.name, note: p.useSpot ? 'unknown (spot prices are not in the catalog)' : 'unknown' } : { instanceType: t.name, perNode: price };
}

/** "$1.006/h" or "$2.012/h (2 nodes × $1.006/h)" or the note. */
export function priceText(pp: PricedPlacement, numNodes: number): string {
  if (pp.perNode === undefined) return pp.note ?? 'unknown';
  const one = `$${pp.perNode.toFixed(3)}/h`;
  return numNodes > 1 ? `$${(pp.perNode * numNodes).toFixed(3)}/h (${numNodes} nodes × ${one})` : one;
}
