import type { protos } from '@google-cloud/compute';
import { ProviderError } from '../provider';
import { gcpCall, operationError } from './errors';
import type { GcpClients } from './clients';
import { lastSegment } from './zones';

type Operation = protos.google.cloud.compute.v1.IOperation;

export interface WaitOptions {
  project: string;
  pollMs: number;
  timeoutMs: number;
}

/**
 * Waits for a zonal (or, with no zone, global) operation to be DONE and throws its error as a
 * ProviderError. operations.wait blocks server-side for up to ~2 minutes and may return before
 * DONE, so it is called in a loop; `pollMs` only spaces the calls when the server answers fast.
 */
export async function waitOperation(c: GcpClients, action: string, op: Operation, w: WaitOptions): Promise<Operation> {
  const deadline = Date.now() + w.timeoutMs;
  const zone = op.zone ? lastSegment(op.zone) : undefined;
  let cur = op;
  while (cur.status !== 'DONE') {
    if (Date.now() > deadline) throw new ProviderError('transient', `${action}: operation ${op.name} not done after ${Math.round(w.timeoutMs / 1000)} s`);
    const started = Date.now();
    [cur] = await gcpCall(`${action} (wait)`, () => (zone
      ? c.zoneOps.wait({ project: w.project, zone, operation: op.name! })
      : c.globalOps.wait({ project: w.project, operation: op.name! })));
    const spent = Date.now() - started;
    if (cur.status !== 'DONE' && spent < w.pollMs) await new Promise((r) => setTimeout(r, w.pollMs - spent));
  }
  const errors = cur.error?.errors ?? [];
  if (errors.length) throw operationError(action, errors);
  return cur;
}

/** The Operation an SDK mutation returned (its LRO wrapper keeps the raw one as latestResponse). */
export function rawOperation(res: unknown): Operation {
  const r = res as { latestResponse?: Operation } & Operation;
  return r.latestResponse ?? r;
}
