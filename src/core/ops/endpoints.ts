import type { ClusterRecord } from '../state';
import type { PortRange } from '../task';
import { OpsError } from './errors';

// `sky status --endpoints` / `--endpoint PORT`: the head's address with each port the task
// opened (resources.ports, recorded with the row's resources at launch). Nothing is connected.

/** Longest listing: a wide range is shown as a range after this many ports. */
const MAX_LISTED = 256;

function portsOf(row: ClusterRecord): PortRange[] {
  try {
    const r = JSON.parse(row.resources ?? 'null') as { ports?: unknown } | null;
    const list = Array.isArray(r?.ports) ? r!.ports : [];
    return list.filter((p): p is PortRange => {
      const x = p as PortRange;
      return Number.isInteger(x?.from) && Number.isInteger(x?.to) && x.from >= 1 && x.to <= 65535 && x.from <= x.to;
    });
  } catch {
    return [];
  }
}

export interface Endpoint {
  /** "8080" or "8000-8999" for a range too wide to list. */
  port: string;
  endpoint: string;
}

export function clusterEndpoints(row: ClusterRecord, only?: number): Endpoint[] {
  if (row.status !== 'UP' || !row.head_address) throw new OpsError('failed', `cluster ${row.name} is ${row.status}; its endpoints exist only while it is UP`);
  const host = row.head_address.includes(':') ? `[${row.head_address}]` : row.head_address;
  const ranges = portsOf(row);
  if (only !== undefined) {
    if (!ranges.some((r) => r.from <= only && only <= r.to)) {
      throw new OpsError('usage', `port ${only} is not opened on ${row.name}${ranges.length ? ` (ports: ${ranges.map(text).join(', ')})` : ' (the task names no resources.ports)'}`);
    }
    return [{ port: String(only), endpoint: `${host}:${only}` }];
  }
  const out: Endpoint[] = [];
  for (const r of ranges) {
    if (r.to - r.from + 1 + out.length > MAX_LISTED) out.push({ port: text(r), endpoint: `${host}:${text(r)}` });
    else for (let p = r.from; p <= r.to; p++) out.push({ port: String(p), endpoint: `${host}:${p}` });
  }
  return out;
}

function text(r: PortRange): string {
  return r.from === r.to ? String(r.from) : `${r.from}-${r.to}`;
}
