// machineTypes.list as Compute Engine answers it: one zone's types, paged by maxResults /
// pageToken. The fake offers its GPU types (a2, a3, g2) in us-central1 only, as GCP offers
// GPUs in a few zones; model.missingTypes hides a type from a zone's listing too.
import type { GceModel, Json } from './model';

type Row = [name: string, cpus: number, memoryMb: number, accelerator?: [type: string, count: number]];

const ROWS: Row[] = [
  ['e2-standard-2', 2, 8192], ['e2-standard-4', 4, 16384], ['e2-standard-8', 8, 32768],
  ['n1-standard-4', 4, 15360], ['n1-standard-8', 8, 30720], ['n2-standard-8', 8, 32768],
  ['a2-highgpu-1g', 12, 87040, ['nvidia-tesla-a100', 1]], ['a2-highgpu-8g', 96, 696320, ['nvidia-tesla-a100', 8]],
  ['a2-ultragpu-1g', 12, 174080, ['nvidia-a100-80gb', 1]], ['g2-standard-4', 4, 16384, ['nvidia-l4', 1]],
  ['g2-standard-8', 8, 32768, ['nvidia-l4', 1]], ['a3-highgpu-8g', 208, 1916928, ['nvidia-h100-80gb', 8]],
  // Shared-core and Arm: listed as GCP lists them, never picked for a shape (no shipped price joins them).
  ['e2-small', 2, 2048], ['t2a-standard-1', 1, 4096],
];
/** An old type GCP still lists, marked deprecated (callers must not pick it). */
const DEPRECATED: Row = ['n1-megamem-96', 96, 1468006];

const listings = new WeakMap<GceModel, number>();
const pageCaps = new WeakMap<GceModel, number>();

/** Caps the page size below the asked maxResults (GCP caps it at 500), so tests see several pages. */
export function capMachineTypePages(m: GceModel, size: number): void {
  pageCaps.set(m, size);
}

/** How many machineTypes.list requests (pages) the fake has answered for this model. */
export function machineTypeListings(m: GceModel): number {
  return listings.get(m) ?? 0;
}

function render(m: GceModel, zone: string, [name, cpus, memoryMb, acc]: Row, n: number): Json {
  return {
    kind: 'compute#machineType', id: String(1000000 + n), creationTimestamp: '1969-12-31T16:00:00.000-08:00', name,
    description: `${cpus} vCPU${cpus > 1 ? 's' : ''}, ${Math.round(memoryMb / 1024)} GB RAM${acc ? `, ${acc[1]} GPU${acc[1] > 1 ? 's' : ''}` : ''}`,
    guestCpus: cpus, memoryMb, imageSpaceGb: 0, maximumPersistentDisks: 128, maximumPersistentDisksSizeGb: '263168',
    zone, selfLink: m.url(`zones/${zone}/machineTypes/${name}`), isSharedCpu: false,
    ...(acc ? { accelerators: [{ guestAcceleratorType: acc[0], guestAcceleratorCount: acc[1] }] } : {}),
  };
}

export function listMachineTypes(m: GceModel, zone: string, query: URLSearchParams): Json {
  listings.set(m, machineTypeListings(m) + 1);
  const offered = ROWS.filter(([name]) => (zone.startsWith('us-central1-') || !/^(a2|a3|g2)-/.test(name)) && !m.missingTypes.has(`${zone}/${name}`));
  const all = [...offered.map((r, i) => render(m, zone, r, i)), {
    ...render(m, zone, DEPRECATED, ROWS.length),
    deprecated: { state: 'DEPRECATED', replacement: m.url(`zones/${zone}/machineTypes/m1-megamem-96`), deprecated: '2020-01-01T00:00:00Z' },
  }];
  const start = Number(query.get('pageToken') ?? 0);
  const size = Math.min(Number(query.get('maxResults') ?? 500), pageCaps.get(m) ?? 500);
  const page = all.slice(start, start + size);
  return {
    kind: 'compute#machineTypeList', id: `projects/${m.project}/zones/${zone}/machineTypes`, items: page,
    selfLink: m.url(`zones/${zone}/machineTypes`), ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}),
  };
}
