import { chooseType } from '../catalog';
import { DEFAULT_DISK_GB } from '../clouds/nodeShape';
import type { Placement } from '../clouds/provider';
import type { ClusterRecord } from '../state';
import { isoDate, times, type PriceAnswer } from './price';
import { SHIPPED, type PriceBook } from './priceBook';
import { DISK_USD_PER_GB_MONTH, HOURS_PER_MONTH, SHIPPED_AS_OF } from './shippedDates';

/** What a cluster costs per hour while running and while stopped. */
export interface ClusterRate {
  /** False for `local` and `ssh` clusters: machines no cloud bills through Skydeck. */
  billed: boolean;
  instanceType?: string;
  /** The type was not recorded; it is the cheapest shipped fit of the shape (an estimate). */
  estimatedType?: boolean;
  spot: boolean;
  nodes: number;
  perNode: PriceAnswer;
  /** Every node, running. */
  running: PriceAnswer;
  /** Every node's root disk, billed while stopped (and while running, folded into `running`'s error bar). */
  stopped: PriceAnswer;
}

const CLOUDS = new Set(Object.keys(SHIPPED));

/** The handle's placement and the instance type recorded at UP; nothing if it does not parse. */
function recorded(row: ClusterRecord): { placement?: Placement; instanceType?: string } {
  try {
    const h = row.handle ? (JSON.parse(row.handle) as { placement?: Placement; instanceType?: unknown }) : {};
    const placement = h.placement && typeof h.placement === 'object' ? h.placement : undefined;
    const type = typeof h.instanceType === 'string' ? h.instanceType : placement?.instanceType;
    return { placement, ...(typeof type === 'string' && type ? { instanceType: type } : {}) };
  } catch {
    return {};
  }
}

export function clusterRate(row: ClusterRecord, book: PriceBook): ClusterRate {
  const nodes = Math.max(1, row.num_nodes);
  if (!CLOUDS.has(row.provider)) {
    const none: PriceAnswer = { usdPerHour: 0, source: `${row.provider}: not billed through a cloud`, asOf: isoDate(Date.now()) };
    return { billed: false, spot: false, nodes, perNode: none, running: none, stopped: none };
  }
  const { placement, instanceType } = recorded(row);
  const spot = !!placement?.useSpot;
  const shape = placement?.resources;
  const acc = shape?.accelerators?.[0];
  let type = instanceType;
  let estimated = false;
  if (!type) {
    const fit = chooseType(SHIPPED[row.provider], { cpus: shape?.cpus, memory: shape?.memory, accelerator: acc, useSpot: spot });
    type = fit?.name;
    estimated = !!fit;
  }
  const gpus = acc ? { name: acc.name, count: Math.ceil(acc.count) } : undefined;
  const perNode: PriceAnswer = type
    ? book.nodePrice({ cloud: row.provider, region: row.region ?? undefined, type, gpus, spot })
    : { unknown: 'the instance type was not recorded and no shipped type fits the shape' };
  const gb = shape?.diskSize ?? DEFAULT_DISK_GB;
  const disk: PriceAnswer = { usdPerHour: (gb * DISK_USD_PER_GB_MONTH[row.provider]) / HOURS_PER_MONTH, source: 'shipped disk price', asOf: SHIPPED_AS_OF[row.provider] };
  return {
    billed: true, spot, nodes, perNode, running: times(perNode, nodes), stopped: times(disk, nodes),
    ...(type ? { instanceType: type } : {}), ...(estimated ? { estimatedType: true } : {}),
  };
}
