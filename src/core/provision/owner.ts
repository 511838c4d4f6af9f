import * as os from 'node:os';
import { randomUUID } from 'node:crypto';

/**
 * The process running a long operation on a row (a fresh launch, a local/ssh down), recorded
 * in the row's handle so that another process — or a later start-up — can tell an operation
 * still under way from one whose process died.
 */
export interface Owner {
  pid: number;
  host: string;
  token: string;
  since: number;
}

/** Operations of this process still running (same pid is not enough: one host runs many). */
const active = new Set<string>();

export function claimOwner(): Owner {
  const o: Owner = { pid: process.pid, host: os.hostname(), token: randomUUID(), since: Date.now() };
  active.add(o.token);
  return o;
}

export function releaseOwner(o: Owner): void {
  active.delete(o.token);
}

/**
 * alive: its operation still runs; dead: it ended or its process is gone; unknown: it runs
 * on another machine (a shared workspace), which we cannot check. The handle is workspace
 * data and may be hostile: anything malformed counts as dead (no owner).
 */
export function ownerState(o: unknown): 'alive' | 'dead' | 'unknown' {
  if (!o || typeof o !== 'object') return 'dead';
  const { pid, host, token } = o as Partial<Owner>;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0 || typeof token !== 'string' || typeof host !== 'string') return 'dead';
  if (host !== os.hostname()) return 'unknown';
  if (pid === process.pid) return active.has(token) ? 'alive' : 'dead';
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return 'alive';
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? 'alive' : 'dead';
  }
}

export function sameOwner(a: unknown, b: Owner): boolean {
  return !!a && typeof a === 'object' && (a as Owner).token === b.token;
}

export function describeOwner(o: Owner): string {
  return `pid ${o.pid}${o.host !== os.hostname() ? ` on ${o.host}` : ''}, since ${new Date(o.since).toISOString()}`;
}
