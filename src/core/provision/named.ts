import type { ClusterRecord } from '../state';
import type { ProvisionEnv } from './env';
import { graceStart, type ProviderHandle } from './handle';

/**
 * The run call's ids that no listing has shown: not gone because a listing leaves them out
 * (EC2 listings can lag past the launch grace window), as they exist or existed. Ids some
 * listing has shown go by the usual rule (a deleted GCP/Azure VM vanishes from listings).
 * A row past INIT was UP, which needs every id listed running; older rows have no `seenIds`.
 */
export function seenBefore(row: ClusterRecord, h: ProviderHandle): Set<string> {
  return new Set([...(h.seenIds ?? []), ...(row.status === 'INIT' ? [] : h.instanceIds)]);
}

/**
 * The named ids absent from `listed` that no listing ever showed (`seen`), while they still
 * count as possibly live: until `namedListingLagMs` after the run call's answer. Empty:
 * nothing holds the row beyond the usual rules.
 */
export function unlistedNamed(env: ProvisionEnv, h: ProviderHandle, listed: Set<string>, seen: Set<string>): string[] {
  if (env.clock.now() - graceStart(h) >= env.timing.namedListingLagMs) return [];
  return h.instanceIds.filter((id) => !listed.has(id) && !seen.has(id));
}

/** What to tell the user about such ids. */
export function describeUnlisted(ids: string[], retry: string): string {
  return `instance(s) ${ids.join(', ')} were created (the run call returned them) but no listing of the cloud shows them yet, ` +
    `so they cannot be proven gone; ${retry}, or "down --purge" to forget them knowingly ("skydeck leaks" finds them once listed)`;
}
