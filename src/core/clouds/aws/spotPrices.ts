import { DescribeSpotPriceHistoryCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { writeSpotCache, type SpotCache } from '../../cost/spotCache';
import { ec2Call } from './errors';

/**
 * The current Linux spot price of each type in the client's region: DescribeSpotPriceHistory
 * with StartTime now answers each zone's latest price; the lowest zone is kept (the launch
 * fails over between zones). Cached with the fetch time for PriceBook (cost/spotCache.ts).
 */
export async function fetchSpotPrices(ec2: EC2Client, region: string, types: string[], dir: string, now = Date.now()): Promise<SpotCache> {
  const prices: SpotCache['prices'] = {};
  const wanted = [...new Set(types)].filter(Boolean);
  // The API takes at most a page of types per call; ask in slices.
  for (let i = 0; i < wanted.length; i += 50) {
    let token: string | undefined;
    do {
      const page = await ec2Call('DescribeSpotPriceHistory', () => ec2.send(new DescribeSpotPriceHistoryCommand({
        InstanceTypes: wanted.slice(i, i + 50) as never, ProductDescriptions: ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'],
        StartTime: new Date(now), NextToken: token, MaxResults: 1000,
      })));
      for (const h of page.SpotPriceHistory ?? []) {
        const usd = Number(h.SpotPrice);
        if (!h.InstanceType || !Number.isFinite(usd) || usd < 0) continue;
        const at = h.Timestamp ? h.Timestamp.getTime() : now;
        const cur = prices[h.InstanceType];
        if (!cur || usd < cur.usd) prices[h.InstanceType] = { usd, at, ...(h.AvailabilityZone ? { zone: h.AvailabilityZone } : {}) };
      }
      token = page.NextToken || undefined;
    } while (token);
  }
  return writeSpotCache(dir, region, prices, now);
}
