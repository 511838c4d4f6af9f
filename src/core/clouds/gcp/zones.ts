// Zones to try per region when a task names a region but no zone. A built-in table because
// Provider.zonesOf is synchronous (the loop expands placements before any call); zones read
// from the API (checkGcp) replace it. A zone the project cannot use fails as capacity and
// the loop moves on.
const SUFFIXES: Record<string, string> = {
  'us-central1': 'abcf', 'us-east1': 'bcd', 'us-east4': 'abc', 'us-east5': 'abc', 'us-west1': 'abc',
  'us-west2': 'abc', 'us-west3': 'abc', 'us-west4': 'abc', 'us-south1': 'abc', 'northamerica-northeast1': 'abc',
  'europe-west1': 'bcd', 'europe-west2': 'abc', 'europe-west3': 'abc', 'europe-west4': 'abc', 'europe-north1': 'abc',
  'asia-east1': 'abc', 'asia-northeast1': 'abc', 'asia-southeast1': 'abc', 'asia-south1': 'abc',
  'australia-southeast1': 'abc', 'southamerica-east1': 'abc',
};

export class GcpZoneTable {
  private readonly learnt = new Map<string, string[]>();

  constructor(private readonly overrides: Record<string, string[]> = {}) {}

  zonesOf(region: string): string[] {
    const fixed = this.overrides[region] ?? this.learnt.get(region);
    if (fixed) return [...fixed];
    const s = SUFFIXES[region];
    return s ? [...s].map((l) => `${region}-${l}`) : [];
  }

  learn(region: string, zones: string[]): void {
    if (zones.length) this.learnt.set(region, [...zones].sort());
  }
}

/** "us-central1-a" → "us-central1". */
export function regionOfZone(zone: string): string {
  return zone.replace(/-[a-z]$/, '');
}

/** The last path segment of a GCP resource URL ("…/zones/us-central1-a" → "us-central1-a"). */
export function lastSegment(url: string | null | undefined): string {
  return (url ?? '').split('/').pop() ?? '';
}
