import * as fs from 'node:fs';
import * as path from 'node:path';

/** AWS spot prices move hourly; an answer older than this is not shown as current. */
export const SPOT_MAX_AGE_MS = 6 * 3600_000;

export interface SpotCache {
  region: string;
  fetchedAt: number;
  /** Instance type → lowest current price over the region's zones, with the price's own time. */
  prices: Record<string, { usd: number; at: number; zone?: string }>;
}

export function spotCachePath(dir: string, region: string): string {
  return path.join(dir, `aws-spot-${region.replace(/[^a-z0-9-]/g, '_')}.json`);
}

/** The cached answer if fresh and well-formed; a file anyone could have written is checked. */
export function readSpotCache(dir: string, region: string, now = Date.now()): SpotCache | undefined {
  try {
    const file = spotCachePath(dir, region);
    if (fs.statSync(file).size > 4 << 20) return undefined;
    const c = JSON.parse(fs.readFileSync(file, 'utf8')) as SpotCache;
    if (typeof c.fetchedAt !== 'number' || now - c.fetchedAt > SPOT_MAX_AGE_MS || !c.prices || typeof c.prices !== 'object') return undefined;
    const prices: SpotCache['prices'] = {};
    for (const [k, v] of Object.entries(c.prices)) {
      if (v && typeof v.usd === 'number' && Number.isFinite(v.usd) && v.usd >= 0 && typeof v.at === 'number') prices[k] = { usd: v.usd, at: v.at, ...(typeof v.zone === 'string' ? { zone: v.zone } : {}) };
    }
    return { region, fetchedAt: c.fetchedAt, prices };
  } catch {
    return undefined;
  }
}

/** Merged into what is cached (other types stay), written whole by rename. */
export function writeSpotCache(dir: string, region: string, prices: SpotCache['prices'], now = Date.now()): SpotCache {
  const old = readSpotCache(dir, region, now)?.prices ?? {};
  const c: SpotCache = { region, fetchedAt: now, prices: { ...old, ...prices } };
  fs.mkdirSync(dir, { recursive: true });
  const file = spotCachePath(dir, region);
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(c));
  fs.renameSync(tmp, file);
  return c;
}
