// The editor's GPU browser (Browse GPUs…): one choice per accelerator and count, with each
// cloud's cheapest on-demand and spot price for it. Words only; the quick pick is ui/.
import type { GpuOffer } from './gpuCatalog';
import { formatRate, isKnown, SHIPPED_SPOT_NOTE, type PriceAnswer } from './price';

export interface GpuChoice {
  accelerator: string;
  count: number;
  /** "A100:8", what goes into `accelerators:`. */
  value: string;
  /** "aws $32.77/h · gcp $29.39/h · azure $27.20/h" (cheapest type per cloud, on-demand). */
  onDemand: string;
  /** "spot: aws unknown · gcp ~$8.82/h · azure ~$10.88/h". */
  spot: string;
  memoryGb?: number;
  /** The cheapest known on-demand price over the clouds, to sort by (Infinity: none known). */
  cheapest: number;
}

const usd = (p: PriceAnswer) => (isKnown(p) ? p.usdPerHour : Number.POSITIVE_INFINITY);

function cheapestOf(offers: GpuOffer[], pick: (o: GpuOffer) => PriceAnswer): PriceAnswer {
  return offers.map(pick).reduce((best, p) => (usd(p) < usd(best) ? p : best));
}

/** Choices by accelerator name, then count; each cloud's cheapest offer per price kind. */
export function gpuChoices(offers: readonly GpuOffer[]): GpuChoice[] {
  const by = new Map<string, GpuOffer[]>();
  for (const o of offers) {
    const k = `${o.accelerator}:${o.count}`;
    by.set(k, [...(by.get(k) ?? []), o]);
  }
  return [...by].map(([value, os]) => {
    const clouds = [...new Set(os.map((o) => o.cloud))].sort();
    const per = (pick: (o: GpuOffer) => PriceAnswer) => clouds.map((c) => `${c} ${formatRate(cheapestOf(os.filter((o) => o.cloud === c), pick))}`).join(' · ');
    const mem = os.find((o) => o.memoryGb)?.memoryGb;
    return {
      accelerator: os[0].accelerator, count: os[0].count, value, onDemand: per((o) => o.onDemand), spot: `spot: ${per((o) => o.spot)}`,
      ...(mem ? { memoryGb: mem } : {}), cheapest: Math.min(...os.map((o) => usd(o.onDemand))),
    };
  }).sort((a, b) => a.accelerator.localeCompare(b.accelerator) || a.count - b.count);
}

/** Said under the list when a "~" shows. */
export const GPU_CHOICES_NOTE = SHIPPED_SPOT_NOTE;
