// The list methods of the fake (zones.list, instances.list / aggregatedList,
// zoneOperations.list), each paged as paging.ts does and filtered by the request's `filter`.
import type { GceModel, FakeInstance, Json } from './model';
import { aggregatedPage, pageOf } from './paging';

type Filter = (obj: Record<string, unknown>) => boolean;

/** The instance as the API shows it: zone and machine type as full URLs. */
export function render(m: GceModel, i: FakeInstance): Json {
  return { ...i, zone: m.url(`zones/${i.zone}`), machineType: m.url(`zones/${i.zone}/machineTypes/${i.machineType}`) };
}

function inZone(m: GceModel, z: string): Json[] {
  return [...m.instances.values()].filter((i) => i.zone === z).map((i) => render(m, i));
}

export function zoneList(m: GceModel, q: URLSearchParams, filter: Filter): Json {
  const zones = m.zones.map((z) => ({ kind: 'compute#zone', name: z, status: 'UP', region: m.url(`regions/${z.replace(/-[a-z]$/, '')}`) }));
  return { kind: 'compute#zoneList', ...pageOf(m, zones.filter(filter), q, 'zones'), selfLink: m.url('zones') };
}

export function instanceList(m: GceModel, zone: string, q: URLSearchParams, filter: Filter): Json {
  return { kind: 'compute#instanceList', ...pageOf(m, inZone(m, zone).filter(filter), q, `${zone}/instances`), selfLink: m.url(`zones/${zone}/instances`) };
}

export function aggregatedInstances(m: GceModel, q: URLSearchParams, filter: Filter, unreachable: Set<string>): Json {
  const page = aggregatedPage(m, m.zones.map((z) => `zones/${z}`), (s) => inZone(m, s.slice(6)).filter(filter), 'instances', q, (s) => unreachable.has(s.slice(6)));
  return { kind: 'compute#instanceAggregatedList', id: `projects/${m.project}/aggregated/instances`, ...page, selfLink: m.url('aggregated/instances') };
}

export function operationList(m: GceModel, zone: string, q: URLSearchParams, filter: Filter): Json {
  const ops = [...m.operations.values()].filter((o) => o.zone === m.url(`zones/${zone}`)).filter(filter);
  return { kind: 'compute#operationList', id: `projects/${m.project}/zones/${zone}/operations`, ...pageOf(m, ops, q, `${zone}/operations`), selfLink: m.url(`zones/${zone}/operations`) };
}
