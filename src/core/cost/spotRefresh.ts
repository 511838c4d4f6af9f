import type { OpsContext } from '../ops/context';
import { readSpotCache } from './spotCache';
import { defaultCatalogDir } from '../catalog';

/** A provider that can answer spot prices (AWS: DescribeSpotPriceHistory). */
interface SpotCapable {
  spotPrices(region: string, types: string[]): Promise<unknown>;
}

/**
 * Fetches AWS spot prices for `types` in `region` unless a fresh answer for all of them is
 * cached; other clouds keep the shipped table (marked as such by PriceBook). Returns why it
 * could not, never throws: a price is a hint, not a reason to fail a command.
 */
export async function refreshAwsSpot(ctx: Pick<OpsContext, 'providers'>, region: string, types: string[], catalogDir = defaultCatalogDir()): Promise<string | undefined> {
  const cached = readSpotCache(catalogDir, region);
  if (cached && types.every((t) => cached.prices[t])) return undefined;
  try {
    const aws = (await ctx.providers?.get('aws')) as Partial<SpotCapable> | undefined;
    if (!aws?.spotPrices) return 'no AWS provider';
    await aws.spotPrices(region, types);
    return undefined;
  } catch (e) {
    return `AWS spot prices for ${region}: ${(e as Error).message}`;
  }
}
