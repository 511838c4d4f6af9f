// Setup re-runs only when it changed: the hash of what setup depends on (its text, envs, secret
// names, image, file mounts, node count) and the job that last ran it are recorded per cluster
// in <workspace>/.skydeck/setup/<uid>.json. The workspace is untrusted, so the record is
// checked when read, and it counts only if the node confirms that job got past its setup.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import type { Task } from '../task';
import type { JobRow } from '../jobs';
import { writeFileAtomic } from '../state/atomicWrite';

export interface SetupRecord {
  hash: string;
  jobId: number;
}

/**
 * What setup's outcome depends on. Secret values are left out (only their names count): a hash
 * of a short secret in a workspace file could be guessed offline.
 */
export function setupHash(task: Task, envs: Record<string, string>, secrets: Record<string, string>): string {
  const doc = {
    setup: task.setup ?? '',
    envs: Object.entries(envs).sort(([a], [b]) => (a < b ? -1 : 1)),
    secrets: Object.keys(secrets).sort(),
    image: task.resources.imageId ?? null,
    mounts: Object.entries(task.fileMounts).sort(([a], [b]) => (a < b ? -1 : 1)),
    workdir: task.workdir ?? null,
    nodes: task.numNodes,
  };
  return createHash('sha256').update(JSON.stringify(doc)).digest('hex');
}

export function setupRecordFile(workspaceRoot: string, uid: string): string {
  return path.join(workspaceRoot, '.skydeck', 'setup', `${uid.replace(/[^0-9a-zA-Z-]/g, '_')}.json`);
}

/** The record, or undefined when missing or not exactly a record (a link, junk, too big). */
export function readSetupRecord(file: string): SetupRecord | undefined {
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.size > 4096) return undefined;
    const o = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (typeof o.hash !== 'string' || !/^[0-9a-f]{64}$/.test(o.hash)) return undefined;
    if (!Number.isSafeInteger(o.jobId) || (o.jobId as number) < 1) return undefined;
    return { hash: o.hash, jobId: o.jobId as number };
  } catch {
    return undefined;
  }
}

export function writeSetupRecord(file: string, r: SetupRecord): void {
  for (const p of [path.dirname(path.dirname(file)), path.dirname(file)]) {
    if (fs.existsSync(p) && fs.lstatSync(p).isSymbolicLink()) throw new Error(`${p} is a symbolic link; Skydeck does not write through it`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, Buffer.from(JSON.stringify(r)));
}

/** Statuses of a job whose setup finished without failing (run may have failed since). */
const PAST_SETUP = new Set(['RUNNING', 'SUCCEEDED', 'FAILED']);

/** True if the node's row for the recorded job says its setup ran through. */
export function setupDoneOnNode(rows: JobRow[], jobId: number): boolean {
  const row = rows.find((r) => r.job_id === jobId);
  return !!row && PAST_SETUP.has(row.status);
}

export type SetupDecision = { run: true; why: string } | { run: false; why: string };

/** Whether a launch on a reused cluster runs setup, and why (said to the user). */
export function decideSetup(task: Task, hash: string, rec: SetupRecord | undefined, nodeRows: JobRow[] | undefined): SetupDecision {
  if (!task.setup) return { run: false, why: 'no setup' };
  if (!rec) return { run: true, why: 'setup has not run on this cluster from this workspace' };
  if (rec.hash !== hash) return { run: true, why: `setup changed since job ${rec.jobId}: it runs again` };
  if (nodeRows && !setupDoneOnNode(nodeRows, rec.jobId)) return { run: true, why: `setup of job ${rec.jobId} did not finish: it runs again` };
  return { run: false, why: `setup unchanged since job ${rec.jobId}: skipped` };
}
