// List paging as every Compute v1 list method does it (discovery doc: query parameters
// `maxResults` — uint32, minimum 0, maximum 500, default 500 — and `pageToken`; the response's
// `nextPageToken` is set only while more results remain). A model may page smaller than asked
// (setPageSize), as GCE does for aggregated lists, so tests prove the caller follows the token.
import { invalid } from './bodies';
import type { GceModel, Json } from './model';

const sizes = new WeakMap<GceModel, number>();

/** Pages of at most `size` results for this model's lists (machine types keep their own cap). */
export function setPageSize(m: GceModel, size: number): void {
  sizes.set(m, size);
}

export function pageSizeOf(m: GceModel): number | undefined {
  return sizes.get(m);
}

interface Slice<T> {
  items: T[];
  nextPageToken?: string;
}

/** The page `query` asks for. Tokens are opaque to callers; a forged one is refused as GCE does. */
export function pageOf<T>(m: GceModel, all: T[], query: URLSearchParams, list: string): Slice<T> {
  const raw = query.get('maxResults');
  const asked = raw === null ? 500 : Number(raw);
  if (!Number.isInteger(asked) || asked < 0 || asked > 500) {
    throw invalid(`Invalid value for field 'maxResults': '${raw}'. Must be less than or equal to 500`);
  }
  const size = Math.max(1, Math.min(asked || 500, sizes.get(m) ?? 500));
  const start = offsetOf(query.get('pageToken'), list);
  const next = start + size < all.length ? Buffer.from(`${list}#${start + size}`).toString('base64url') : undefined;
  return { items: all.slice(start, start + size), ...(next ? { nextPageToken: next } : {}) };
}

function offsetOf(token: string | null, list: string): number {
  if (!token) return 0;
  const m = /^(.*)#(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  if (!m || m[1] !== list) throw invalid(`Invalid value for field 'pageToken': '${token}'. Invalid page token.`);
  return Number(m[2]);
}

/**
 * One page of an aggregated list (InstanceAggregatedList): `maxResults` counts resources across
 * all scopes; every scope still appears on each page, with a NO_RESULTS_ON_PAGE warning when
 * none of its resources fell on it (Warning.code enum), and an unreachable scope with UNREACHABLE.
 */
export function aggregatedPage(
  m: GceModel, scopes: string[], resourcesOf: (scope: string) => Json[], field: string, query: URLSearchParams,
  unreachable: (scope: string) => boolean,
): { items: Json; nextPageToken?: string } {
  const flat = scopes.flatMap((s) => (unreachable(s) ? [] : resourcesOf(s).map((r) => ({ s, r }))));
  const page = pageOf(m, flat, query, `aggregated/${field}`);
  const items: Json = {};
  const warn = (code: string, message: string, scope: string) => ({ warning: { code, message, data: [{ key: 'scope', value: scope }] } });
  for (const s of scopes) {
    const here = page.items.filter((x) => x.s === s).map((x) => x.r);
    if (unreachable(s)) items[s] = warn('UNREACHABLE', `Scope '${s}' is unreachable.`, s);
    else items[s] = here.length ? { [field]: here } : warn('NO_RESULTS_ON_PAGE', `There are no results for scope '${s}' on this page.`, s);
  }
  return { items, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
}
