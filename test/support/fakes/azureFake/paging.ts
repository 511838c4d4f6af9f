// ARM list paging: a list answer is {value: [...], nextLink?}, and nextLink is an absolute URL
// to GET for the rest (azure-rest-api-specs: every list operation is "x-ms-pageable" with
// "nextLinkName": "nextLink", e.g. resources.json ResourceGroups_List, virtualMachine.json
// VirtualMachines_List, networkInterface.json NetworkInterfaces_List). ARM decides the page
// size; the fake uses a small one in tests so a client that reads one page only is caught.
// The continuation is ARM's usual $skiptoken query parameter (opaque to clients).
import type { Json } from './model';

export function page(items: Json[], url: URL, size: number): Json {
  const from = Math.max(0, Number(url.searchParams.get('$skiptoken') ?? 0) || 0);
  const value = items.slice(from, from + size);
  if (from + size >= items.length) return { value };
  const next = new URL(url);
  next.searchParams.set('$skiptoken', String(from + size));
  return { value, nextLink: next.toString() };
}
