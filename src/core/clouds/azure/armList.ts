import type { AzureClients } from './clients';

export type ArmItem = { id?: string; name?: string; type?: string; properties?: Record<string, unknown> };

/**
 * Every item of an ARM list operation at `path` (no leading slash, query allowed), following
 * nextLink. The client packages have no role-assignment list, so this goes through the generic
 * resources client's GET by id: core-client keeps the fields of a body it has no mapper for
 * (`value`, `nextLink`), and a nextLink's path and query are asked on the client's own endpoint.
 */
export async function listById(c: AzureClients, path: string, apiVersion: string): Promise<ArmItem[]> {
  const out: ArmItem[] = [];
  let next: string | undefined = path;
  for (let pages = 0; next; pages++) {
    if (pages >= 10_000) throw new Error(`${path}: more than 10000 pages`);
    const page = (await c.resources.resources.getById(next, apiVersion)) as unknown as { value?: ArmItem[]; nextLink?: string };
    out.push(...(page.value ?? []));
    const link: URL | undefined = page.nextLink ? new URL(page.nextLink) : undefined;
    next = link ? `${link.pathname.slice(1)}${link.search}` : undefined;
  }
  return out;
}
