import { ProviderError } from '../provider';
import type { GcpClients } from './clients';
import { gcpCall } from './errors';
import { pages } from './rest';
import type { AggregatedPage, Instance } from './types';

/**
 * One instances.aggregatedList of the project, every page, `filter` applied by GCE. A zone GCP
 * could not reach answers with a warning instead of its instances: that is "unknown", never
 * "none" — thrown (an empty answer would let the core believe they are gone), or handed to
 * `unreachable` by the sweep, which reports it. `seen` hears every scope that was listed.
 */
export function aggregatedInstances(
  c: GcpClients, project: string, filter: string, unreachable?: (scope: string, message: string) => void, seen?: (scope: string) => void,
): Promise<Instance[]> {
  return gcpCall('instances.aggregatedList', async () => {
    const out: Instance[] = [];
    const path = `projects/${project}/aggregated/instances`;
    for await (const page of pages((pageToken) => c.get<AggregatedPage>(path, { filter, pageToken }))) {
      for (const [scope, scoped] of Object.entries(page.items ?? {})) {
        if (scoped.warning?.code === 'UNREACHABLE') {
          if (!unreachable) throw new ProviderError('transient', `instances of ${scope} could not be listed: ${scoped.warning.message ?? 'unreachable'}`);
          unreachable(scope, scoped.warning.message ?? 'unreachable');
          continue;
        }
        seen?.(scope);
        out.push(...(scoped.instances ?? []));
      }
    }
    return out;
  });
}
