// A cached catalog file is read back as untrusted input: another process (or a disk filling
// up) may have left anything there, and one bad entry must not crash the optimizer.
import type { InstanceType } from './types';

/** Far above any region's listing (AWS's largest is well under 1 MiB). */
export const MAX_CATALOG_BYTES = 16 << 20;

const finite = (v: unknown, min = 0): v is number => typeof v === 'number' && Number.isFinite(v) && v >= min;
const optFinite = (v: unknown) => v === undefined || finite(v);

/** The entry when its shape is an instance type's; undefined otherwise (dropped, not fatal). */
export function checkedType(t: unknown, cloud: string): InstanceType | undefined {
  if (!t || typeof t !== 'object') return undefined;
  const o = t as Record<string, unknown>;
  if (o.cloud !== cloud || typeof o.name !== 'string' || !o.name || o.name.length > 200) return undefined;
  if (!finite(o.vcpus) || !finite(o.memoryGb) || !optFinite(o.price) || !optFinite(o.spotPrice)) return undefined;
  if (o.arch !== undefined && o.arch !== 'x86_64' && o.arch !== 'arm64') return undefined;
  if (o.currentGeneration !== undefined && typeof o.currentGeneration !== 'boolean') return undefined;
  if (o.gpus !== undefined) {
    const g = o.gpus as Record<string, unknown> | null;
    if (!g || typeof g !== 'object' || typeof g.name !== 'string' || !g.name || !finite(g.count, 0) || !optFinite(g.memoryGb)) return undefined;
  }
  return o as unknown as InstanceType;
}
