// Zones to try per region when a task names a region but no zone. A built-in table because
// Provider.zonesOf is synchronous (the loop expands placements before any call); zones learnt
// from DescribeAvailabilityZones replace it. AZ letters an account cannot use fail with
// "invalid availability zone", which is read as capacity, so the loop simply moves on.
import { DescribeRegionsCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { ProviderError } from '../provider';
import { ec2Call } from './errors';

const LETTERS: Record<string, string> = {
  'us-east-1': 'abcdf', 'us-east-2': 'abc', 'us-west-1': 'bc', 'us-west-2': 'abcd',
  'ca-central-1': 'abd', 'eu-west-1': 'abc', 'eu-west-2': 'abc', 'eu-west-3': 'abc',
  'eu-central-1': 'abc', 'eu-north-1': 'abc', 'eu-south-1': 'abc', 'ap-northeast-1': 'acd',
  'ap-northeast-2': 'abcd', 'ap-northeast-3': 'abc', 'ap-southeast-1': 'abc', 'ap-southeast-2': 'abc',
  'ap-south-1': 'abc', 'sa-east-1': 'abc', 'me-south-1': 'abc', 'af-south-1': 'abc',
};

export class ZoneTable {
  private readonly learnt = new Map<string, string[]>();

  constructor(private readonly overrides: Record<string, string[]> = {}) {}

  zonesOf(region: string): string[] {
    const fixed = this.overrides[region] ?? this.learnt.get(region);
    if (fixed) return [...fixed];
    const letters = LETTERS[region];
    return letters ? [...letters].map((l) => `${region}${l}`) : [];
  }

  learn(region: string, zones: string[]): void {
    if (zones.length) this.learnt.set(region, [...zones].sort());
  }
}

/** Regions the account can use (opted-in ones included), asked of `ec2` (the default region's client). */
export async function enabledRegions(ec2: EC2Client): Promise<string[]> {
  const r = await ec2Call('DescribeRegions', () => ec2.send(new DescribeRegionsCommand({ AllRegions: false })));
  const names = (r.Regions ?? []).map((x) => x.RegionName).filter((n): n is string => !!n).sort();
  if (!names.length) throw new ProviderError('transient', 'DescribeRegions listed no region');
  return names;
}
