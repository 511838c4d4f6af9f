import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CatalogFile, InstanceType } from './types';
import { MAX_CATALOG_BYTES, checkedType } from './cacheCheck';

/** A week: instance type shapes change rarely; prices are only used to rank. */
export const CATALOG_MAX_AGE_MS = 7 * 24 * 3600_000;

export function defaultCatalogDir(): string {
  return path.join(os.homedir(), '.skydeck', 'catalog');
}

export function catalogPath(dir: string, cloud: string, region: string): string {
  return path.join(dir, `${cloud}-${region}.json`);
}

/**
 * The cached listing if present, readable, of this cloud and fresh enough; anything else (too
 * big, not a regular file, malformed) reads as a miss. Malformed entries are dropped.
 */
export function readCatalog(file: string, now = Date.now(), maxAgeMs = CATALOG_MAX_AGE_MS, cloud?: string): CatalogFile | undefined {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_CATALOG_BYTES) return undefined;
    const c = JSON.parse(fs.readFileSync(file, 'utf8')) as CatalogFile;
    if (!c || typeof c !== 'object' || !Array.isArray(c.types) || typeof c.fetchedAt !== 'number') return undefined;
    if (cloud !== undefined && c.cloud !== cloud) return undefined;
    if (!(now - c.fetchedAt <= maxAgeMs)) return undefined;
    const types = c.types.map((t) => checkedType(t, c.cloud)).filter((t): t is InstanceType => !!t);
    return types.length ? { ...c, types } : undefined;
  } catch {
    return undefined;
  }
}

/** Written to a temp file and renamed, so a reader never sees half a catalog. */
export function writeCatalog(file: string, cloud: string, region: string, types: InstanceType[], now = Date.now()): CatalogFile {
  const c: CatalogFile = { cloud, region, fetchedAt: now, types };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(c));
  fs.renameSync(tmp, file);
  return c;
}

/** Fetched shapes with shipped prices joined in by name (fetched listings carry no prices). */
export function withPrices(types: InstanceType[], priced: readonly InstanceType[]): InstanceType[] {
  const byName = new Map(priced.map((t) => [t.name, t]));
  return types.map((t) => {
    const p = byName.get(t.name);
    return p ? { ...t, price: t.price ?? p.price, spotPrice: t.spotPrice ?? p.spotPrice, ...(p.namedOnly ? { namedOnly: true } : {}) } : t;
  });
}

export interface CatalogSource {
  cloud: string;
  region: string;
  dir: string;
  /** The cloud's own listing (shapes, no prices). */
  fetch(): Promise<InstanceType[]>;
  /** The shipped table: the answer when fetching fails or finds nothing. */
  shipped: readonly InstanceType[];
  /** Makes a listing launchable (default: shipped prices joined in by name). */
  complete?(types: InstanceType[]): InstanceType[];
  log?(message: string): void;
}

/**
 * The region's catalog: the cached listing when fresh, else fetched and cached with the time.
 * If fetching fails (or finds nothing) the shipped table still answers common requests.
 */
export async function cachedCatalog(src: CatalogSource): Promise<InstanceType[]> {
  const complete = src.complete ?? ((types: InstanceType[]) => withPrices(types, src.shipped));
  const file = catalogPath(src.dir, src.cloud, src.region);
  const cached = readCatalog(file, Date.now(), CATALOG_MAX_AGE_MS, src.cloud);
  if (cached) return complete(cached.types);
  try {
    const types = await src.fetch();
    if (!types.length) return [...src.shipped];
    writeCatalog(file, src.cloud, src.region, types);
    return complete(types);
  } catch (e) {
    src.log?.(`${src.cloud} catalog for ${src.region}: ${e instanceof Error ? e.message : String(e)}; using the shipped table`);
    return [...src.shipped];
  }
}
