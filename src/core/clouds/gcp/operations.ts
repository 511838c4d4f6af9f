import { ProviderError } from '../provider';
import { gcpCall, operationError } from './errors';
import type { GcpClients } from './clients';
import type { Operation } from './types';
import { lastSegment } from './zones';

export interface WaitOptions {
  project: string;
  pollMs: number;
  timeoutMs: number;
}

/** The operation's own collection: zoneOperations, regionOperations or globalOperations (by its `zone` / `region` URL). */
export function operationPath(project: string, op: Operation): string {
  const scope = op.zone ? `zones/${lastSegment(op.zone)}` : op.region ? `regions/${lastSegment(op.region)}` : 'global';
  return `projects/${project}/${scope}/operations/${op.name}`;
}

/**
 * Waits for a zonal, regional or global operation to be DONE and throws its error as a
 * ProviderError. operations.wait blocks server-side for up to ~2 minutes and may return before
 * DONE, so it is called in a loop; `pollMs` only spaces the calls when the server answers fast.
 */
export async function waitOperation(c: GcpClients, action: string, op: Operation, w: WaitOptions): Promise<Operation> {
  const deadline = Date.now() + w.timeoutMs;
  const path = `${operationPath(w.project, op)}/wait`;
  let cur = op;
  while (cur.status !== 'DONE') {
    if (!op.name) throw new ProviderError('transient', `${action}: the API answered with an operation that has no name`);
    if (Date.now() > deadline) throw new ProviderError('transient', `${action}: operation ${op.name} not done after ${Math.round(w.timeoutMs / 1000)} s`);
    const started = Date.now();
    cur = await gcpCall(`${action} (wait)`, () => c.post<Operation>(path));
    const spent = Date.now() - started;
    if (cur.status !== 'DONE' && spent < w.pollMs) await new Promise((r) => setTimeout(r, w.pollMs - spent));
  }
  const errors = cur.error?.errors ?? [];
  if (errors.length) throw operationError(action, errors);
  return cur;
}
