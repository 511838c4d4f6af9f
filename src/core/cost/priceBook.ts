import { AWS_SHIPPED, catalogPath, defaultCatalogDir, readCatalog, type InstanceType } from '../catalog';
import { AZURE_SHIPPED } from '../catalog/azureShipped';
import { GCP_SHIPPED } from '../catalog/gcpShipped';
import { isoDate, type PriceAnswer } from './price';
import { SHIPPED_AS_OF } from './shippedDates';
import { readSpotCache } from './spotCache';

export const SHIPPED: Record<string, readonly InstanceType[]> = { aws: AWS_SHIPPED, gcp: GCP_SHIPPED, azure: AZURE_SHIPPED };

export interface TypeQuery {
  cloud: string;
  region?: string;
  /** Instance type / machine type / VM size. */
  type: string;
  /** GCP N1 rows differ only by their attached GPUs. */
  gpus?: { name: string; count: number };
  spot: boolean;
}

/**
 * Prices of one node, from what is on this machine and nothing else (no network, so the tree
 * and the status bar can ask on every redraw): a cached fetched catalog that carries prices,
 * the cached AWS spot answer, then the shipped tables. Anything else is "unknown".
 */
export class PriceBook {
  constructor(private readonly catalogDir = defaultCatalogDir(), private readonly now = () => Date.now()) {}

  nodePrice(q: TypeQuery): PriceAnswer {
    return q.spot ? this.spot(q) : this.onDemand(q);
  }

  /** The catalog row (fetched if cached, else shipped) a query names, for shapes and GPUs. */
  row(q: Omit<TypeQuery, 'spot'>): InstanceType | undefined {
    return this.fetched(q)?.row ?? pick(SHIPPED[q.cloud] ?? [], q);
  }

  private onDemand(q: TypeQuery): PriceAnswer {
    const f = this.fetched(q);
    if (f && usable(f.row.price)) return { usdPerHour: f.row.price, source: `${q.cloud} catalog (fetched)`, asOf: isoDate(f.at) };
    const shipped = pick(SHIPPED[q.cloud] ?? [], q);
    if (shipped?.price !== undefined) return { usdPerHour: shipped.price, source: 'shipped table', asOf: SHIPPED_AS_OF[q.cloud] ?? 'undated' };
    return { unknown: `${q.cloud} ${q.type} is in no price table here` };
  }

  private spot(q: TypeQuery): PriceAnswer {
    if (q.cloud === 'aws' && q.region) {
      const hit = readSpotCache(this.catalogDir, q.region, this.now())?.prices[q.type];
      if (hit) return { usdPerHour: hit.usd, source: 'aws DescribeSpotPriceHistory', asOf: isoDate(hit.at) };
    }
    const f = this.fetched(q);
    if (f && usable(f.row.spotPrice)) return { usdPerHour: f.row.spotPrice, source: `${q.cloud} catalog (fetched)`, asOf: isoDate(f.at) };
    const shipped = pick(SHIPPED[q.cloud] ?? [], q);
    if (shipped?.spotPrice !== undefined) {
      return { usdPerHour: shipped.spotPrice, source: 'shipped spot table (approximate)', asOf: SHIPPED_AS_OF[q.cloud] ?? 'undated', shippedSpot: true };
    }
    const where = q.cloud === 'aws' ? `no DescribeSpotPriceHistory answer cached${q.region ? ` for ${q.region}` : ' (no region)'}` : `${q.cloud} publishes no spot price Skydeck can fetch`;
    return { unknown: `spot price of ${q.type}: ${where}, and the shipped table has none` };
  }

  private fetched(q: Omit<TypeQuery, 'spot'>): { row: InstanceType; at: number } | undefined {
    if (!q.region) return undefined;
    const c = readCatalog(catalogPath(this.catalogDir, q.cloud, q.region), this.now());
    const row = c && pick(c.types, q);
    return row && c ? { row, at: c.fetchedAt } : undefined;
  }
}

/** A cached catalog is a file anyone with the home dir could have written: a price must be a real one. */
function usable(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0;
}

function pick(types: readonly InstanceType[], q: Omit<TypeQuery, 'spot'>): InstanceType | undefined {
  const same = (t: InstanceType) => (q.cloud === 'azure' ? t.name.toLowerCase() === q.type.toLowerCase() : t.name === q.type);
  const rows = types.filter(same);
  if (rows.length <= 1) return rows[0];
  // Several rows of one name: GCP's N1 machine with and without attached GPUs.
  return rows.find((t) => (q.gpus ? t.gpus?.name === q.gpus.name && t.gpus.count === q.gpus.count : !t.gpus));
}
