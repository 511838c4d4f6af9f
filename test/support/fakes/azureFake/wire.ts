// The fake ARM's wire conventions: long-running operations (Azure-AsyncOperation and Location
// headers, and what polling them answers), request bodies, and the wire form of a resource.
import { ArmError } from './bodies';
import type { ArmModel, AsyncOp, Json } from './model';

export type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

/** Async-operation headers as the compute/network RPs send them (no Retry-After: tests set the interval). */
export function lroHeaders(endpoint: string, m: ArmModel, op: AsyncOp, location = 'eastus', withLocation = false): Record<string, string> {
  const base = `${endpoint}/subscriptions/${m.subscription}/providers/Microsoft.Compute/locations/${location}`;
  return { 'azure-asyncoperation': `${base}/operations/${op.id}?api-version=2024-07-01`, ...(withLocation ? { location: `${base}/operationResults/${op.id}?api-version=2024-07-01` } : {}) };
}

/**
 * Azure-AsyncOperation status ({id, name, status, startTime, endTime?, error?}), or a
 * Location poll: 202 with the Location to poll next until done, then 200 (or the error).
 */
export function opStatus(m: ArmModel, kind: string, id: string, url: URL): Reply {
  const op = m.ops.get(id);
  if (!op) throw new ArmError(404, 'NotFound', `Operation ${id} not found.`);
  if (kind === 'operations') return { status: 200, body: { name: op.id, ...op, id: url.pathname } };
  if (op.status === 'InProgress') return { status: 202, headers: { location: url.toString() } };
  return op.status === 'Failed' ? { status: 400, body: { error: op.error } } : { status: 200, body: {} };
}

/** A request body ARM cannot read is a 400 InvalidRequestContent, not a dropped connection. */
export function parseBody(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (e) {
    throw new ArmError(400, 'InvalidRequestContent', `The request content was invalid and could not be deserialized: '${(e as Error).message}'.`);
  }
}

/** Wire form without the fake's private fields (power state is only in the instance view). */
export function strip(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => !k.startsWith('_')).map(([k, x]) => [k, strip(x)]));
}
