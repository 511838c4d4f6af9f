import { cachedCatalog, withPrices, type InstanceType } from '../../catalog';
import { GCP_GUEST_ACCELERATORS, GCP_SHIPPED, gcpArmType, gcpAttachesGpus } from '../../catalog/gcpShipped';
import type { GcpClients } from './clients';
import { gcpCall } from './errors';
import type { MachineType } from './types';

// GCP accelerator type → catalog GPU name: the guest (N1) table reversed, plus the GPUs built
// into a2/a3/g2 machine types, whose names say more than the catalog's (memory, "tesla").
const GPU_NAMES: Record<string, string> = {
  ...Object.fromEntries(Object.entries(GCP_GUEST_ACCELERATORS).map(([name, type]) => [type, name])),
  'nvidia-tesla-a100': 'A100', 'nvidia-a100-80gb': 'A100-80GB', 'nvidia-h100-80gb': 'H100',
  'nvidia-h100-mega-80gb': 'H100-MEGA', 'nvidia-h200-141gb': 'H200', 'nvidia-l4': 'L4',
};

/** Per-GPU memory the shipped table knows, by catalog GPU name (the API does not say). */
const GPU_MEMORY = new Map(GCP_SHIPPED.flatMap((t) => (t.gpus?.memoryGb ? [[t.gpus.name, t.gpus.memoryGb] as const] : [])));

/** A catalog GPU name for an accelerator type; an unknown one keeps its model ("nvidia-b200" → "B200"). */
export function gpuName(acceleratorType: string): string {
  return GPU_NAMES[acceleratorType] ?? acceleratorType.replace(/^nvidia-(tesla-)?/, '').toUpperCase();
}

export function toCatalogType(t: MachineType): InstanceType | undefined {
  if (!t.name || !t.guestCpus || !t.memoryMb || t.deprecated?.state) return undefined;
  const out: InstanceType = {
    cloud: 'gcp', name: t.name, vcpus: t.guestCpus, memoryGb: Math.round((t.memoryMb / 1024) * 100) / 100,
    arch: gcpArmType(t.name) ? 'arm64' : 'x86_64',
    currentGeneration: !gcpAttachesGpus(t.name),
  };
  const acc = t.accelerators?.[0];
  if (acc?.guestAcceleratorType && acc.guestAcceleratorCount) {
    const name = gpuName(acc.guestAcceleratorType);
    const mem = GPU_MEMORY.get(name) ?? Number(/-(\d+)gb$/.exec(acc.guestAcceleratorType)?.[1] ?? 0);
    out.gpus = { name, count: acc.guestAcceleratorCount, ...(mem ? { memoryGb: mem } : {}) };
  }
  return out;
}

/** Every current machine type of one zone (the API lists per zone, page by page; reads retried by the client). */
export async function fetchGcpTypes(c: GcpClients, project: string, zone: string): Promise<InstanceType[]> {
  return gcpCall('machineTypes.list', async () => {
    const all = await c.list<MachineType>(`projects/${project}/zones/${zone}/machineTypes`, { maxResults: 500 });
    return all.flatMap((t) => toCatalogType(t) ?? []);
  });
}

/**
 * Fetched machine types made launchable: shipped prices joined in, and for each N1 type the
 * shipped rows that attach GPUs to it (the listing knows nothing of guest accelerators, and
 * pickMachine attaches them from those rows). Prices of the GPU-less rows only: the shipped
 * N1 rows share a name with their GPU variants.
 */
export function withShipped(types: InstanceType[]): InstanceType[] {
  const guestRows = GCP_SHIPPED.filter((t) => t.gpus && gcpAttachesGpus(t.name));
  const plain = GCP_SHIPPED.filter((t) => !guestRows.includes(t));
  const out = withPrices(types, plain);
  for (const t of types.filter((x) => gcpAttachesGpus(x.name) && !x.gpus)) {
    for (const g of guestRows.filter((r) => r.name === t.name)) out.push({ ...t, gpus: g.gpus, price: g.price, spotPrice: g.spotPrice, currentGeneration: true });
  }
  return out;
}

/** The region's catalog, listed from one of its zones and cached per region (catalog/cache.ts). */
export function gcpCatalog(
  c: GcpClients, region: string, zone: string, dir: string, o: { log?: (m: string) => void } = {},
): Promise<InstanceType[]> {
  return cachedCatalog({
    cloud: 'gcp', region, dir, shipped: GCP_SHIPPED, complete: withShipped, log: o.log,
    fetch: async () => fetchGcpTypes(c, await c.projectId(), zone),
  });
}
