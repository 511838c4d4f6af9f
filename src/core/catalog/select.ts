import type { AcceleratorOption, Quantity } from '../task/types';
import type { InstanceType } from './types';

/** What a task asks of one node (SkyPilot's cpus / memory / accelerators). */
export interface ShapeRequest {
  cpus?: Quantity;
  memory?: Quantity;
  accelerator?: AcceleratorOption;
  useSpot?: boolean;
}

/**
 * SkyPilot's default node when a task names no shape: 8 vCPUs with 4 GB per vCPU
 * (m6i.2xlarge on AWS), so a bare `cloud: aws` gets a useful general-purpose machine.
 */
export const DEFAULT_SHAPE: ShapeRequest = { cpus: { min: 8, orMore: true }, memory: { min: 32, orMore: true } };

// Memory is reported in MiB by clouds; a little slack keeps "memory: 16" matching 15.99 GB.
const EPS = 0.05;

function meets(have: number, want: Quantity | undefined): boolean {
  if (!want) return true;
  return want.orMore ? have + EPS >= want.min : Math.abs(have - want.min) <= EPS;
}

function gpuMatches(t: InstanceType, acc: AcceleratorOption | undefined): boolean {
  // No accelerator asked: never hand out a GPU machine by accident (they cost 10x).
  if (!acc) return !t.gpus;
  if (!t.gpus) return false;
  // Fractions (L4:0.25) share one GPU between jobs; the node itself needs a whole one.
  if (t.gpus.count !== Math.ceil(acc.count)) return false;
  if (acc.memory) {
    const per = t.gpus.memoryGb ?? 0;
    return acc.memory.orMore ? per >= acc.memory.gb : per === acc.memory.gb;
  }
  return t.gpus.name.toLowerCase() === acc.name.toLowerCase();
}

/** Every type that satisfies the request, cheapest first (see rank). */
export function fittingTypes(types: readonly InstanceType[], req: ShapeRequest): InstanceType[] {
  const shaped = !req.cpus && !req.memory && !req.accelerator ? { ...req, ...DEFAULT_SHAPE } : req;
  return types.filter((t) => !t.namedOnly && meets(t.vcpus, shaped.cpus) && meets(t.memoryGb, shaped.memory) && gpuMatches(t, shaped.accelerator))
    .sort((a, b) => rank(a, b, !!req.useSpot));
}

/**
 * Priced types first, cheapest first (spot price when spot is asked and known); then, with no
 * price to go by, current generation before previous, smallest (vCPUs, then memory) first.
 */
function rank(a: InstanceType, b: InstanceType, spot: boolean): number {
  const pa = priceOf(a, spot);
  const pb = priceOf(b, spot);
  if (pa !== undefined || pb !== undefined) {
    if (pa === undefined) return 1;
    if (pb === undefined) return -1;
    if (pa !== pb) return pa - pb;
  }
  const ga = a.currentGeneration === false ? 1 : 0;
  const gb = b.currentGeneration === false ? 1 : 0;
  return ga - gb || a.vcpus - b.vcpus || a.memoryGb - b.memoryGb || a.name.localeCompare(b.name);
}

function priceOf(t: InstanceType, spot: boolean): number | undefined {
  return spot && t.spotPrice !== undefined ? t.spotPrice : t.price;
}

/** The chosen type, or undefined with nothing fitting (the caller says what was asked). */
export function chooseType(types: readonly InstanceType[], req: ShapeRequest): InstanceType | undefined {
  return fittingTypes(types, req)[0];
}

export function describeShape(req: ShapeRequest): string {
  const q = (x: Quantity | undefined, unit = '') => (x ? `${x.min}${unit}${x.orMore ? '+' : ''}` : undefined);
  const parts = [q(req.cpus) && `cpus ${q(req.cpus)}`, q(req.memory, 'GB') && `memory ${q(req.memory, 'GB')}`,
    req.accelerator && `accelerators ${req.accelerator.name}:${req.accelerator.count}`].filter(Boolean);
  return parts.length ? parts.join(', ') : 'the default shape (cpus 8+, memory 32GB+)';
}
