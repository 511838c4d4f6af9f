import { fittingTypes, type InstanceType } from '../catalog';
import type { Placement } from '../clouds/provider';
import { placementsOf } from '../provision/candidates';
import type { Task } from '../task';
import { isKnown, times, type PriceAnswer } from './price';
import { SHIPPED, type PriceBook } from './priceBook';

/** The region a candidate is priced in when the task names none (where the shipped tables are from). */
export const PRICE_REGION: Record<string, string> = { aws: 'us-east-1', gcp: 'us-central1', azure: 'eastus' };

/** One way to run the task: a type in a place, with both prices, per node and for every node. */
export interface PricedCandidate {
  cloud: string;
  region: string;
  /** True when the task named no region and the price is the cloud's reference region's. */
  regionAssumed: boolean;
  instanceType: string;
  vcpus: number;
  memoryGb: number;
  gpus?: InstanceType['gpus'];
  spot: boolean;
  onDemand: PriceAnswer;
  spotPrice: PriceAnswer;
  /** The price the launch would pay per node (spot if asked) and for `nodes`. */
  perNode: PriceAnswer;
  total: PriceAnswer;
  nodes: number;
}

export interface LaunchPlan {
  /** The task's num_nodes (every total is for this many). */
  nodes: number;
  /** What launch tries first (the first placement's cheapest fit); absent if nothing fits. */
  chosen?: PricedCandidate;
  /** Other fits, cheapest first (other types, regions and clouds the task allows). */
  alternatives: PricedCandidate[];
  /** Placements no shipped or cached type fits, said rather than dropped. */
  unmatched: string[];
  /** Clusters on `local`/`ssh`: no cloud price applies. */
  notBilled?: string;
}

const PER_PLACEMENT = 5;

function candidatesOf(p: Placement, nodes: number, book: PriceBook): PricedCandidate[] {
  const region = p.region ?? PRICE_REGION[p.cloud];
  const query = (t: InstanceType) => ({ cloud: p.cloud, region, type: t.name, gpus: t.gpus });
  const types: InstanceType[] = p.instanceType
    ? [book.row({ cloud: p.cloud, region, type: p.instanceType }) ?? { cloud: p.cloud, name: p.instanceType, vcpus: 0, memoryGb: 0 }]
    : (p.resources?.accelerators?.length ? p.resources.accelerators : [undefined]).flatMap((accelerator) =>
      fittingTypes(SHIPPED[p.cloud], { cpus: p.resources?.cpus, memory: p.resources?.memory, accelerator, useSpot: p.useSpot }));
  return types.slice(0, PER_PLACEMENT).map((t) => {
    const onDemand = book.nodePrice({ ...query(t), spot: false });
    const spotPrice = book.nodePrice({ ...query(t), spot: true });
    const perNode = p.useSpot ? spotPrice : onDemand;
    return {
      cloud: p.cloud, region, regionAssumed: !p.region, instanceType: t.name, vcpus: t.vcpus, memoryGb: t.memoryGb,
      ...(t.gpus ? { gpus: t.gpus } : {}), spot: p.useSpot, onDemand, spotPrice, perNode, total: times(perNode, nodes), nodes,
    };
  });
}

const priceKey = (c: PricedCandidate) => (isKnown(c.total) ? c.total.usdPerHour : Number.POSITIVE_INFINITY);

/**
 * The optimizer's table for a task: every placement it allows (a task naming no cloud is
 * priced on each cloud Skydeck has a table for), the first placement's cheapest fit as the
 * choice, the rest cheapest first. Prices come from this machine only (PriceBook).
 */
export function launchPlan(task: Task, book: PriceBook, opts: { cloud?: string; region?: string; alternatives?: number } = {}): LaunchPlan {
  // A region given for the launch (the editor's pick) goes to placements that name none, as launch does.
  const named = placementsOf(task.resources, opts.cloud).map((p) => (opts.region && !p.region ? { ...p, region: opts.region } : p));
  const cloudOf = named[0]?.cloud;
  if (cloudOf === 'local' || cloudOf === 'ssh') return { nodes: task.numNodes, alternatives: [], unmatched: [], notBilled: `${cloudOf}: not billed through a cloud` };
  // No cloud named: launch runs it on this machine; what each cloud would charge is still shown.
  const local = named.every((p) => !p.cloud);
  const placements = named.flatMap((p) => (p.cloud ? [p] : Object.keys(SHIPPED).map((cloud) => ({ ...p, cloud }))));
  const unmatched: string[] = [];
  const seen = new Set<string>();
  const all: PricedCandidate[] = [];
  for (const p of placements) {
    if (!SHIPPED[p.cloud]) {
      unmatched.push(`${p.cloud}: no price table`);
      continue;
    }
    const cs = candidatesOf(p, task.numNodes, book);
    if (!cs.length) unmatched.push(`${p.cloud}${p.region ? `/${p.region}` : ''}: no known type fits`);
    for (const c of cs) {
      const key = `${c.cloud}/${c.region}/${c.instanceType}/${c.gpus?.name ?? ''}:${c.gpus?.count ?? 0}/${c.spot}`;
      if (!seen.has(key)) {
        seen.add(key);
        all.push(c);
      }
    }
  }
  // The first placement that fits is what launch tries first (its own cheapest type).
  const chosen = local ? undefined : all[0];
  const alternatives = all.slice(local ? 0 : 1).sort((a, b) => priceKey(a) - priceKey(b)).slice(0, opts.alternatives ?? 4);
  return { nodes: task.numNodes, ...(chosen ? { chosen } : {}), alternatives, unmatched, ...(local ? { notBilled: 'no cloud named: launch runs it on this machine (local)' } : {}) };
}
