import type { ResourceSku } from '@azure/arm-compute';
import { cachedCatalog, type InstanceType } from '../../catalog';
import { AZURE_SHIPPED } from '../../catalog/azureShipped';
import type { AzureClients } from './clients';
import { azCall } from './errors';

const SHIPPED_BY_NAME = new Map(AZURE_SHIPPED.map((t) => [t.name.toLowerCase(), t]));

// A SKU says how many GPUs but not which: the model is read from the size name's family, for
// sizes the shipped table lacks. Names as in the shipped table (NC A100 v4 carry 80 GB A100s).
const GPU_FAMILIES: [RegExp, string, number][] = [
  [/^standard_nc\d+ads_a100_v4$/, 'A100-80GB', 80],
  [/^standard_nd\d+amsr_a100_v4$/, 'A100-80GB', 80],
  [/^standard_nd\d+asr_v4$/, 'A100', 40],
  [/^standard_n[cd]\d+\w*_h100_v5$/, 'H100', 80],
  [/^standard_nc\d+as_t4_v3$/, 'T4', 16],
  [/^standard_nv\d+\w*_a10_v5$/, 'A10', 24],
  [/^standard_nc\d+s_v3$/, 'V100', 16],
];

/** The GPU model of a size: the shipped row's, else its family's (undefined: unknown family). */
export function gpuOf(size: string): { name: string; memoryGb: number } | undefined {
  const shipped = SHIPPED_BY_NAME.get(size.toLowerCase())?.gpus;
  if (shipped) return { name: shipped.name, memoryGb: shipped.memoryGb ?? 0 };
  const f = GPU_FAMILIES.find(([re]) => re.test(size.toLowerCase()));
  return f && { name: f[1], memoryGb: f[2] };
}

/** Whether the subscription may not deploy the size in the location at all (zone restrictions still leave other zones). */
function restrictedIn(sku: ResourceSku, location: string): boolean {
  return (sku.restrictions ?? []).some((r) => r.type === 'Location' && (r.values ?? []).some((v) => v.toLowerCase() === location));
}

export function toCatalogType(sku: ResourceSku, location: string): InstanceType | undefined {
  if (sku.resourceType !== 'virtualMachines' || !sku.name || restrictedIn(sku, location.toLowerCase())) return undefined;
  const cap = (n: string) => sku.capabilities?.find((c) => c.name === n)?.value;
  const vcpus = Number(cap('vCPUs'));
  const memoryGb = Number(cap('MemoryGB'));
  if (!vcpus || !memoryGb) return undefined;
  const out: InstanceType = {
    cloud: 'azure', name: sku.name, vcpus, memoryGb,
    arch: cap('CpuArchitectureType')?.toLowerCase() === 'arm64' ? 'arm64' : 'x86_64', currentGeneration: true,
  };
  const count = Number(cap('GPUs') ?? 0);
  const gpu = count > 0 ? gpuOf(sku.name) : undefined;
  // A GPU size of an unknown family is left out rather than offered as a CPU machine.
  if (count > 0 && !gpu) return undefined;
  if (gpu) out.gpus = { name: gpu.name, count, ...(gpu.memoryGb ? { memoryGb: gpu.memoryGb } : {}) };
  return out;
}

/** Every VM size the subscription may deploy in the location, from the Resource SKUs API. */
export async function fetchAzureTypes(c: AzureClients, location: string): Promise<InstanceType[]> {
  return azCall('resourceSkus.list', async () => {
    const out: InstanceType[] = [];
    for await (const sku of c.compute.resourceSkus.list({ filter: `location eq '${location.replace(/'/g, "''")}'` })) {
      const t = toCatalogType(sku, location);
      if (t) out.push(t);
    }
    return out;
  });
}

/** The location's catalog, cached per location (catalog/cache.ts). */
export function azureCatalog(c: AzureClients, location: string, dir: string, log?: (m: string) => void): Promise<InstanceType[]> {
  return cachedCatalog({ cloud: 'azure', region: location, dir, fetch: () => fetchAzureTypes(c, location), shipped: AZURE_SHIPPED, log });
}
