import * as fs from 'node:fs';
import * as path from 'node:path';
import { clusterNameProblem } from '../state/clusterName';
import { skydeckHome } from './home';

// The per-user index of live clusters (issue 20): one small JSON file per workspace under
// <skydeck home>/index/, written only by that workspace's own processes (renamed into place,
// so a reader or a second window never sees half of one) and only read by the others. It is
// a copy of what each workspace's state says; no workspace's state.db is ever opened from
// here. Anyone can write to the directory, so every file is checked as it is read.

export interface IndexedCluster {
  name: string;
  uid: string;
  provider: string;
  region: string | null;
  status: 'INIT' | 'UP' | 'STOPPED';
  /** USD/h its current status bills (running nodes, or a stopped cluster's disks); absent: unknown. */
  usdPerHour?: number;
  autostopMinutes: number | null;
}

export interface WorkspaceIndex {
  version: 1;
  workspaceId: string;
  /** The folder that holds `.skydeck/state.db`. */
  folder: string;
  updatedAt: number;
  clusters: IndexedCluster[];
}

const MAX_FILE_BYTES = 256 << 10;
const MAX_FILES = 2000;
const ID_RE = /^[0-9a-f-]{1,64}$/;

export function indexDir(home = skydeckHome()): string {
  return path.join(home, 'index');
}

/**
 * Replaces this workspace's entry (a workspace with no cluster left has none). The file name
 * is the workspace's own id, so two workspaces never write the same file; two windows of one
 * workspace each rename a complete file into place, and the last one wins with the same data.
 */
export function publishWorkspace(entry: WorkspaceIndex, home = skydeckHome()): void {
  if (!ID_RE.test(entry.workspaceId)) throw new Error(`bad workspace id ${JSON.stringify(entry.workspaceId)}`);
  const dir = indexDir(home);
  const file = path.join(dir, `${entry.workspaceId}.json`);
  if (!entry.clusters.length) {
    fs.rmSync(file, { force: true });
    return;
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(entry), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export interface IndexRead {
  workspaces: WorkspaceIndex[];
  /** Files that failed the check: named, never used. */
  refused: string[];
}

/** Every well-formed entry except `exceptId`'s (this workspace's own). */
export function readIndex(exceptId?: string, home = skydeckHome()): IndexRead {
  const dir = indexDir(home);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json')).slice(0, MAX_FILES);
  } catch {
    return { workspaces: [], refused: [] };
  }
  const out: IndexRead = { workspaces: [], refused: [] };
  for (const n of names) {
    if (exceptId && n === `${exceptId}.json`) continue;
    const problem = (() => {
      try {
        const file = path.join(dir, n);
        const st = fs.lstatSync(file);
        if (!st.isFile()) return 'not a regular file';
        if (st.size > MAX_FILE_BYTES) return 'too large';
        const w = checkEntry(JSON.parse(fs.readFileSync(file, 'utf8')));
        if (typeof w === 'string') return w;
        if (`${w.workspaceId}.json` !== n) return 'its name is not its workspace id';
        out.workspaces.push(w);
        return undefined;
      } catch (e) {
        return (e as Error).message;
      }
    })();
    if (problem) out.refused.push(`${n}: ${problem}`);
  }
  return out;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const finite = (x: unknown, max = 1e9): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= max;

/** The entry, or why it is refused. */
export function checkEntry(x: unknown): WorkspaceIndex | string {
  if (!x || typeof x !== 'object') return 'not an object';
  const w = x as Record<string, unknown>;
  if (w.version !== 1) return 'unknown version';
  if (typeof w.workspaceId !== 'string' || !ID_RE.test(w.workspaceId)) return 'bad workspace id';
  if (typeof w.folder !== 'string' || !path.isAbsolute(w.folder) || w.folder.length > 4096 || CONTROL.test(w.folder)) return 'bad folder';
  if (!finite(w.updatedAt, 1e14)) return 'bad updatedAt';
  if (!Array.isArray(w.clusters) || w.clusters.length > 1000) return 'bad clusters';
  const clusters: IndexedCluster[] = [];
  for (const c of w.clusters as Record<string, unknown>[]) {
    if (!c || typeof c !== 'object') return 'bad cluster';
    if (typeof c.name !== 'string' || clusterNameProblem(c.name)) return 'bad cluster name';
    if (typeof c.uid !== 'string' || !/^[0-9a-f-]{36}$/.test(c.uid)) return 'bad cluster uid';
    if (typeof c.provider !== 'string' || !/^[a-z0-9-]{1,20}$/.test(c.provider)) return 'bad provider';
    if (c.region !== null && (typeof c.region !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(c.region))) return 'bad region';
    if (c.status !== 'INIT' && c.status !== 'UP' && c.status !== 'STOPPED') return 'bad status';
    if (c.usdPerHour !== undefined && !finite(c.usdPerHour, 1e6)) return 'bad price';
    if (c.autostopMinutes !== null && !finite(c.autostopMinutes, 1e7)) return 'bad autostop';
    clusters.push({
      name: c.name, uid: c.uid, provider: c.provider, region: c.region as string | null, status: c.status,
      ...(c.usdPerHour !== undefined ? { usdPerHour: c.usdPerHour as number } : {}), autostopMinutes: c.autostopMinutes as number | null,
    });
  }
  return { version: 1, workspaceId: w.workspaceId, folder: w.folder, updatedAt: w.updatedAt, clusters };
}

/** "3 clusters in other folders still billing $4.12/h" figures: unknown prices are counted apart. */
export function otherBilling(ws: readonly WorkspaceIndex[]): { clusters: number; folders: number; usdPerHour: number; unknown: number } {
  const billing = ws.map((w) => w.clusters.filter((c) => c.provider !== 'local' && c.provider !== 'ssh')).filter((cs) => cs.length);
  const all = billing.flat();
  return {
    clusters: all.length, folders: billing.length,
    usdPerHour: all.reduce((s, c) => s + (c.usdPerHour ?? 0), 0), unknown: all.filter((c) => c.usdPerHour === undefined).length,
  };
}
