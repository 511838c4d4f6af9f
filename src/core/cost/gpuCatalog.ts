import { catalogPath, readCatalog, type InstanceType } from '../catalog';
import { PRICE_REGION } from './candidates';
import { type PriceAnswer } from './price';
import { SHIPPED, type PriceBook } from './priceBook';

/** One way to get an accelerator: a type on a cloud in a region, with its prices. */
export interface GpuOffer {
  accelerator: string;
  count: number;
  memoryGb?: number;
  cloud: string;
  region: string;
  instanceType: string;
  vcpus: number;
  hostMemoryGb: number;
  onDemand: PriceAnswer;
  spot: PriceAnswer;
}

export interface GpuQuery {
  /** "A100", "a100:8" (name, optionally a count); absent: every accelerator. */
  accelerator?: string;
  cloud?: string;
  region?: string;
}

/** The types with GPUs Skydeck knows: a cached fetched catalog of the region if any, else the shipped table. */
function typesOf(cloud: string, region: string, catalogDir: string): readonly InstanceType[] {
  const cached = readCatalog(catalogPath(catalogDir, cloud, region));
  const withGpus = cached?.types.filter((t) => t.gpus);
  return withGpus?.length ? withGpus : SHIPPED[cloud];
}

/** Offers matching the query, by accelerator, count, then price. */
export function gpuOffers(q: GpuQuery, book: PriceBook, catalogDir: string): GpuOffer[] {
  const [name, countText] = (q.accelerator ?? '').split(':');
  const count = countText ? Number(countText) : undefined;
  const clouds = q.cloud ? [q.cloud.toLowerCase()] : Object.keys(SHIPPED);
  const out: GpuOffer[] = [];
  for (const cloud of clouds) {
    if (!SHIPPED[cloud]) continue;
    const region = q.region ?? PRICE_REGION[cloud];
    for (const t of typesOf(cloud, region, catalogDir)) {
      if (!t.gpus) continue;
      if (name && t.gpus.name.toLowerCase() !== name.toLowerCase()) continue;
      if (count !== undefined && t.gpus.count !== count) continue;
      const query = { cloud, region, type: t.name, gpus: t.gpus };
      out.push({
        accelerator: t.gpus.name, count: t.gpus.count, ...(t.gpus.memoryGb ? { memoryGb: t.gpus.memoryGb } : {}), cloud, region,
        instanceType: t.name, vcpus: t.vcpus, hostMemoryGb: t.memoryGb,
        onDemand: book.nodePrice({ ...query, spot: false }), spot: book.nodePrice({ ...query, spot: true }),
      });
    }
  }
  const price = (o: GpuOffer) => ('usdPerHour' in o.onDemand ? o.onDemand.usdPerHour : Number.POSITIVE_INFINITY);
  return out.sort((a, b) => a.accelerator.localeCompare(b.accelerator) || a.count - b.count || price(a) - price(b));
}

/** Accelerator name → counts offered per cloud (`show-gpus` with no name). */
export function gpuSummary(offers: readonly GpuOffer[]): { accelerator: string; counts: number[]; clouds: string[] }[] {
  const by = new Map<string, { counts: Set<number>; clouds: Set<string> }>();
  for (const o of offers) {
    const e = by.get(o.accelerator) ?? { counts: new Set(), clouds: new Set() };
    e.counts.add(o.count);
    e.clouds.add(o.cloud);
    by.set(o.accelerator, e);
  }
  return [...by].map(([accelerator, e]) => ({ accelerator, counts: [...e.counts].sort((a, b) => a - b), clouds: [...e.clouds].sort() }));
}
