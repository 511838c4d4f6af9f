// A managed job's output outlives its clusters: before the controller tears a cluster down it
// reads the job's log there (bounded, byte for byte) into `<controller home>/logs/<id>/`, one
// file per cluster, named `<launch>-<cluster>.log`. Each file is written whole (temp + rename)
// and an existing one is kept, so a controller killed mid-way and restarted neither loses nor
// doubles a segment. A head that no longer answers (preempted) leaves a `.missing` file saying why.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { getCluster } from '../state';
import { writeFileAtomic } from '../state/atomicWrite';
import type { OpsContext } from '../ops';
import type { ManagedJob } from './jobRows';

/** Kept per cluster; more is cut off with a note (a log can be many GB, the disk is the user's). */
export const KEPT_LOG_MAX_BYTES = 16 * 1024 * 1024;

export function keptLogDir(workspaceRoot: string, id: number): string {
  return path.join(workspaceRoot, 'logs', String(id));
}

/** The line between two clusters' output, in live follows and in kept logs alike. */
export function recoveryMarker(id: number, cluster: string, detail: string): string {
  return `--- managed job ${id}: now on cluster ${cluster} (${detail}) ---`;
}

/**
 * Best effort, never throws, and bounded in time: the teardown must not wait long on a log
 * (billing matters more; a recovery wants its new cluster soon, so it passes a short limit).
 */
export async function keepLog(ctx: OpsContext, job: ManagedJob, o: { timeoutMs?: number; maxBytes?: number } = {}): Promise<void> {
  if (!job.clusterName || job.agentJobId === null) return;
  const dir = keptLogDir(ctx.workspaceRoot, job.id);
  const base = path.join(dir, `${job.launches}-${job.clusterName}`);
  if (fs.existsSync(`${base}.log`) || fs.existsSync(`${base}.missing`)) return;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileAtomic(`${base}.log`, await readLog(ctx, job, o.maxBytes ?? KEPT_LOG_MAX_BYTES, o.timeoutMs ?? 60_000));
  } catch (e) {
    try {
      writeFileAtomic(`${base}.missing`, Buffer.from((e as Error).message.slice(0, 4096)));
    } catch (e2) {
      ctx.log(`managed job ${job.id}: could not keep the log of ${job.clusterName}: ${(e2 as Error).message}`);
    }
  }
}

async function readLog(ctx: OpsContext, job: ManagedJob, max: number, timeoutMs: number): Promise<Buffer> {
  const row = await ctx.store.read((db) => getCluster(db, job.clusterName!));
  if (!row || (job.clusterUid && row.uid !== job.clusterUid)) throw new Error(`cluster ${job.clusterName} is gone`);
  if (row.status !== 'UP') throw new Error(`cluster ${job.clusterName} is ${row.status}`);
  const chunks: Buffer[] = [];
  let size = 0;
  let cut = false;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  try {
    await ctx.connections.client(row).followLogs(job.agentJobId!, (d) => {
      if (cut) return;
      const room = max - size;
      if (d.length > room) {
        chunks.push(d.subarray(0, room));
        size = max;
        cut = true;
        ac.abort();
        return;
      }
      chunks.push(d);
      size += d.length;
    }, { follow: false, signal: ac.signal });
  } finally {
    clearTimeout(timer);
  }
  if (ac.signal.aborted && !cut) throw new Error(`the head of ${job.clusterName} did not answer within ${timeoutMs / 1000} s`);
  if (cut) chunks.push(Buffer.from(`\n[skydeck: output after the first ${max} bytes was not kept]\n`));
  return Buffer.concat(chunks);
}

interface Segment {
  launch: number;
  cluster: string;
  file: string;
  missing: boolean;
}

function segments(workspaceRoot: string, id: number): Segment[] {
  const dir = keptLogDir(workspaceRoot, id);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: Segment[] = [];
  for (const n of names) {
    const m = /^(\d+)-(.+)\.(log|missing)$/.exec(n);
    if (m) out.push({ launch: Number(m[1]), cluster: m[2], file: path.join(dir, n), missing: m[3] === 'missing' });
  }
  return out.sort((a, b) => a.launch - b.launch);
}

/** Where a live follow stopped: the cluster it read and how many of its bytes it passed on. */
export interface KeptFrom {
  cluster: string;
  offset: number;
  /** Stop before this cluster's output (the one a follow goes on to read live). */
  before?: string;
}

/**
 * The kept output of every cluster the job ran on, in order, a marker line between; undefined:
 * none kept. With `from`, what a live follow did not show: the rest of that cluster's output
 * (its read may have failed as the cluster was torn down), then the clusters after it, marked.
 */
export function readKeptLog(workspaceRoot: string, id: number, from?: KeptFrom): Buffer | undefined {
  let segs = segments(workspaceRoot, id);
  const shown = from === undefined ? -1 : segs.findIndex((s) => s.cluster === from.cluster);
  // (That cluster not kept at all: nothing, rather than guess at what was shown.)
  if (from !== undefined && shown < 0) return undefined;
  const parts: Buffer[] = [];
  if (shown >= 0) {
    const s = segs[shown];
    if (!s.missing) {
      const body = fs.readFileSync(s.file);
      if (body.length > from!.offset) parts.push(body.subarray(from!.offset));
    }
    segs = segs.slice(shown + 1);
  }
  const stop = from?.before === undefined ? -1 : segs.findIndex((s) => s.cluster === from.before);
  if (stop >= 0) segs = segs.slice(0, stop);
  segs.forEach((s, i) => {
    if (i || shown >= 0) parts.push(Buffer.from(`${endsWithNewline(parts) ? '' : '\n'}${recoveryMarker(id, s.cluster, `launch ${s.launch}`)}\n`));
    const body = fs.readFileSync(s.file);
    parts.push(s.missing ? Buffer.from(`[skydeck: the output on cluster ${s.cluster} could not be kept: ${body.toString('utf8')}]\n`) : body);
  });
  return parts.length ? Buffer.concat(parts) : undefined;
}

function endsWithNewline(parts: Buffer[]): boolean {
  const last = parts.at(-1);
  return !last || !last.length || last[last.length - 1] === 0x0a;
}
