// Zones to try per region when a task names a region but no zone. A built-in table because
// Provider.zonesOf is synchronous (the loop expands placements before any call); zones learnt
// from DescribeAvailabilityZones replace it. AZ letters an account cannot use fail with
// "invalid availability zone", which is read as capacity, so the loop simply moves on.
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
