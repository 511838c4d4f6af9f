import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { clusterNameProblem } from '../state/clusterName';
import { skydeckHome } from './home';
import type { WorkspaceIndex } from './userIndex';

// What "closing the last window with billing clusters and no autostop" can say (issue 20). VS
// Code cannot veto a window close, so two things instead: the window that becomes the last one
// (windowLeases.ts) warns while the user can still act, and the last window to deactivate leaves
// a record that the next window to start shows once. The clusters come from the per-user index
// (userIndex.ts): every workspace's live clusters as its windows last published them.

export interface UnguardedCluster {
  name: string;
  uid: string;
  folder: string;
  /** USD/h while running; absent: unknown. */
  usdPerHour?: number;
}

/** Cloud clusters UP or INIT with no autostop: they bill until someone stops them. */
export function unguardedClusters(ws: readonly WorkspaceIndex[]): UnguardedCluster[] {
  return ws.flatMap((w) => w.clusters
    .filter((c) => (c.status === 'UP' || c.status === 'INIT') && c.autostopMinutes === null && c.provider !== 'local' && c.provider !== 'ssh')
    .map((c) => ({ name: c.name, uid: c.uid, folder: w.folder, ...(c.usdPerHour !== undefined ? { usdPerHour: c.usdPerHour } : {}) })));
}

/** Names the set (order-free), for "Don't warn again for these clusters": a new cluster is a new set. */
export function clusterSetKey(cs: readonly Pick<UnguardedCluster, 'uid'>[]): string {
  return createHash('sha256').update([...new Set(cs.map((c) => c.uid))].sort().join('\n')).digest('hex').slice(0, 32);
}

/**
 * Warn on this look? Only when the window has just become the last one (another window was
 * live at the last look and none is now), something bills with no autostop, and the user has
 * not silenced this very set.
 */
export function becameLastWithBilling(othersBefore: number, othersNow: number, set: readonly UnguardedCluster[], silenced: ReadonlySet<string>): boolean {
  return othersBefore > 0 && othersNow === 0 && set.length > 0 && !silenced.has(clusterSetKey(set));
}

/** "a, b and 3 more" and "$4.12/h (+1 of unknown price)". */
export function describeSet(cs: readonly Pick<UnguardedCluster, 'name' | 'usdPerHour'>[]): { names: string; rate: string } {
  const shown = cs.slice(0, 5).map((c) => c.name).join(', ');
  const names = cs.length > 5 ? `${shown} and ${cs.length - 5} more` : shown;
  const usd = cs.reduce((s, c) => s + (c.usdPerHour ?? 0), 0);
  const unknown = cs.filter((c) => c.usdPerHour === undefined).length;
  return { names, rate: `$${usd.toFixed(2)}/h${unknown ? ` (+${unknown} of unknown price)` : ''}` };
}

export function lastWindowMessage(cs: readonly UnguardedCluster[]): string {
  const { names, rate } = describeSet(cs);
  return `This is the last Skydeck window: ${cs.length === 1 ? 'cluster' : 'clusters'} ${names} ${cs.length === 1 ? 'bills' : 'bill'} ${rate} with no autostop, and keep billing after it closes.`;
}

/** What the last window to close saw billing. */
export interface LastClose {
  version: 1;
  at: number;
  clusters: { name: string; folder: string; usdPerHour?: number }[];
}

export function lastClosePath(home = skydeckHome()): string {
  return path.join(home, 'last-close.json');
}

/** Called from deactivate(): synchronous, whole file renamed into place. */
export function recordLastClose(rec: LastClose, home = skydeckHome()): void {
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const file = lastClosePath(home);
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(rec), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/**
 * The record, taken: renamed away first, so of windows starting together exactly one gets it
 * and it is shown once. A string says why a record was refused (and it is gone too).
 */
export function takeLastClose(home = skydeckHome()): LastClose | string | undefined {
  const file = lastClosePath(home);
  const mine = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.taking`;
  try {
    fs.renameSync(file, mine);
  } catch {
    return undefined; // none, or another window took it
  }
  try {
    const st = fs.lstatSync(mine);
    if (!st.isFile() || st.size > 256 << 10) return 'not a small regular file';
    return checkLastClose(JSON.parse(fs.readFileSync(mine, 'utf8')));
  } catch (e) {
    return (e as Error).message;
  } finally {
    try {
      fs.rmSync(mine, { force: true });
    } catch {
      // A directory planted under the name: left, renamed away, never shown.
    }
  }
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export function checkLastClose(x: unknown): LastClose | string {
  if (!x || typeof x !== 'object') return 'not an object';
  const r = x as Record<string, unknown>;
  if (r.version !== 1) return 'unknown version';
  if (typeof r.at !== 'number' || !Number.isFinite(r.at) || r.at < 0 || r.at > 1e14) return 'bad time';
  if (!Array.isArray(r.clusters) || !r.clusters.length || r.clusters.length > 1000) return 'bad clusters';
  const clusters: LastClose['clusters'] = [];
  for (const c of r.clusters as Record<string, unknown>[]) {
    if (!c || typeof c !== 'object' || typeof c.name !== 'string' || clusterNameProblem(c.name)) return 'bad cluster name';
    if (typeof c.folder !== 'string' || !path.isAbsolute(c.folder) || c.folder.length > 4096 || CONTROL.test(c.folder)) return 'bad folder';
    const usd = c.usdPerHour;
    if (usd !== undefined && (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0 || usd > 1e6)) return 'bad price';
    clusters.push({ name: c.name, folder: c.folder, ...(usd !== undefined ? { usdPerHour: usd as number } : {}) });
  }
  return { version: 1, at: r.at, clusters };
}

export function lastCloseMessage(rec: LastClose, formatTime: (ms: number) => string = (ms) => new Date(ms).toLocaleString()): string {
  const { names, rate } = describeSet(rec.clusters);
  return `When the last Skydeck window closed at ${formatTime(rec.at)}, ${rec.clusters.length === 1 ? 'cluster' : 'clusters'} ${names} ${rec.clusters.length === 1 ? 'was' : 'were'} billing ${rate} with no autostop.`;
}
