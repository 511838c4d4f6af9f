import { defaultCatalogDir } from '../../core/catalog';
import { formatRate, gpuOffers, gpuSummary, isKnown, PriceBook, SHIPPED, type PriceAnswer } from '../../core/cost';
import { refreshAwsSpot } from '../../core/cost/spotRefresh';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { table } from '../table';

export const showGpusCommand: CliCommand = {
  name: 'show-gpus',
  summary: 'list accelerators, the instance types that carry them and their prices',
  usage: `skydeck show-gpus [ACC[:COUNT]] [--cloud CLOUD] [--region REGION] [--spot-refresh]
  ACC             an accelerator name (A100, T4, ...), optionally with a count (A100:8);
                  without it, every accelerator with the counts each cloud offers
  --cloud         aws, gcp or azure (default: all three)
  --region        price in this region (default: each cloud's reference region)
  --spot-refresh  ask AWS for current spot prices first (DescribeSpotPriceHistory; needs AWS
                  credentials); otherwise a cached answer is used, else "unknown"
Prices are USD per hour per instance, with their source and date; "unknown" is never 0.`,
  flags: [{ name: 'cloud', takesValue: true }, { name: 'region', takesValue: true }, { name: 'spot-refresh' }],
  async run(args, io, context) {
    if (args.positionals.length > 1) throw new UsageError('show-gpus takes at most one accelerator');
    const cloud = typeof args.flags.cloud === 'string' ? args.flags.cloud.toLowerCase() : undefined;
    if (cloud && !SHIPPED[cloud]) throw new UsageError(`--cloud must be one of ${Object.keys(SHIPPED).join(', ')} (got ${JSON.stringify(cloud)})`);
    const region = typeof args.flags.region === 'string' ? args.flags.region : undefined;
    if (region && !/^[A-Za-z0-9_-]{1,64}$/.test(region)) throw new UsageError(`--region ${JSON.stringify(region)} is not a region name`);
    const acc = args.positionals[0];
    if (acc !== undefined && !/^[A-Za-z0-9._-]{1,40}(:[0-9]{1,3})?$/.test(acc)) throw new UsageError(`${JSON.stringify(acc)} is not an accelerator (NAME or NAME:COUNT)`);
    const dir = defaultCatalogDir();
    const book = new PriceBook(dir);
    let offers = gpuOffers({ accelerator: acc, cloud, region }, book, dir);
    if (args.flags['spot-refresh'] && (!cloud || cloud === 'aws')) {
      const aws = offers.filter((o) => o.cloud === 'aws');
      const why = aws.length ? await refreshAwsSpot(await context(), aws[0].region, aws.map((o) => o.instanceType), dir) : undefined;
      if (why) io.err(`warning: ${why}; AWS spot prices stay unknown\n`);
      offers = gpuOffers({ accelerator: acc, cloud, region }, book, dir);
    }
    if (!offers.length) {
      io.err(`No accelerator ${acc ? JSON.stringify(acc) : ''} known${cloud ? ` on ${cloud}` : ''}. Run "skydeck show-gpus" for the list.\n`);
      return 1;
    }
    if (!acc) {
      io.out(table(['GPU', 'QTY', 'CLOUDS'], gpuSummary(offers).map((s) => [s.accelerator, s.counts.join(', '), s.clouds.join(', ')])));
      io.out('\nFor instance types and prices: skydeck show-gpus ACC\n');
      return 0;
    }
    io.out(table(
      ['GPU', 'QTY', 'CLOUD', 'INSTANCE_TYPE', 'DEVICE_MEM', 'vCPUs', 'HOST_MEM', 'HOURLY_PRICE', 'HOURLY_SPOT_PRICE', 'REGION'],
      offers.map((o) => [o.accelerator, String(o.count), o.cloud, o.instanceType, o.memoryGb ? `${o.memoryGb}GB` : '-', String(o.vcpus),
        `${o.hostMemoryGb}GB`, formatRate(o.onDemand), formatRate(o.spot), o.region]),
    ));
    io.out(`\n${sourcesLine(offers.flatMap((o) => [o.onDemand, o.spot]))}\n`);
    return 0;
  },
};

/** "Prices: shipped table (2026-11-30); unknown: spot price of ...". One line per distinct source. */
export function sourcesLine(ps: PriceAnswer[]): string {
  const known = [...new Set(ps.filter(isKnown).map((p) => `${p.source} (${p.asOf})`))];
  const unknown = ps.filter((p) => !isKnown(p)).length;
  return `Prices: ${known.join('; ') || 'none known'}${unknown ? `; ${unknown} unknown (no source on this machine)` : ''}`;
}
