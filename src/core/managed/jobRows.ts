// The managed_jobs and managed_events tables. Every status change goes through moveJob, which
// refuses a backward move and appends the change, with its reason, in the same transaction.
import type { Database, SqlValue } from 'sql.js';
import { managedEventProblem, managedRowProblem } from './rowCheck';
import { isTerminal, moveProblem, type ManagedStatus } from './states';

export interface ManagedJob {
  id: number;
  name: string;
  submittedAt: number;
  status: ManagedStatus;
  /** Task YAML texts, run in order (one for a plain job). */
  tasks: string[];
  envs: Record<string, string>;
  taskIndex: number;
  recoveryCount: number;
  restartsOnErrors: number;
  /** Clusters launched so far (the next one's name derives from it). */
  launches: number;
  clusterName: string | null;
  /** null with a clusterName: the launch is intended (adopt the row if one exists). */
  clusterUid: string | null;
  agentJobId: number | null;
  region: string | null;
  lastError: string | null;
  startedAt: number | null;
  endedAt: number | null;
  updatedAt: number;
  cancelRequested: boolean;
  /** The token of its copies of local files on the controller (carryFiles.ts), if any. */
  uploads?: string | null;
}

/** Work left for a controller: the job has not ended, or its cluster is not torn down yet. */
export function hasWork(j: Pick<ManagedJob, 'status' | 'clusterName'>): boolean {
  return !isTerminal(j.status) || j.clusterName !== null;
}

export interface ManagedEvent {
  id: number;
  jobId: number;
  ts: number;
  from: ManagedStatus | null;
  to: ManagedStatus;
  reason: string;
}

/** What may change with (or without) a move. */
export type JobPatch = Partial<Pick<ManagedJob,
  'taskIndex' | 'recoveryCount' | 'restartsOnErrors' | 'launches' | 'clusterName' | 'clusterUid' | 'agentJobId' | 'region' | 'lastError' | 'startedAt' | 'endedAt'>>;

export class ManagedMoveError extends Error {}

const COLUMNS: Record<keyof JobPatch, string> = {
  taskIndex: 'task_index', recoveryCount: 'recovery_count', restartsOnErrors: 'restarts_on_errors', launches: 'launches',
  clusterName: 'cluster_name', clusterUid: 'cluster_uid', agentJobId: 'agent_job_id', region: 'region', lastError: 'last_error',
  startedAt: 'started_at', endedAt: 'ended_at',
};

export function insertJob(
  db: Database, j: { name: string; tasks: string[]; envs: Record<string, string>; now: number; creator: { user: string; machine: string }; uploads?: string },
): number {
  db.run(
    `INSERT INTO managed_jobs (name, submitted_at, status, tasks, envs, updated_at, created_by_user, created_by_machine, uploads)
     VALUES (?, ?, 'PENDING', ?, ?, ?, ?, ?, ?)`,
    [j.name, j.now, JSON.stringify(j.tasks), JSON.stringify(j.envs), j.now, j.creator.user, j.creator.machine, j.uploads ?? null],
  );
  const id = Number(db.exec('SELECT last_insert_rowid()')[0].values[0][0]);
  appendManagedEvent(db, id, null, 'PENDING', 'submitted', j.now);
  return id;
}

export interface JobListing {
  jobs: ManagedJob[];
  /** Rows that failed their check: never acted on, listed so nothing is hidden. */
  refused: { id: unknown; problem: string }[];
}

export function listJobs(db: Database, where = '', params: SqlValue[] = []): JobListing {
  const out: JobListing = { jobs: [], refused: [] };
  for (const row of rowsOf(db, `SELECT * FROM managed_jobs ${where} ORDER BY id`, params)) {
    const problem = managedRowProblem(row);
    if (problem) out.refused.push({ id: row.id, problem });
    else out.jobs.push(toJob(row));
  }
  return out;
}

export function getJob(db: Database, id: number): ManagedJob | undefined {
  return listJobs(db, 'WHERE id = ?', [id]).jobs[0];
}

/**
 * Moves job `id` to `to` with `patch`, recording why. Refused (ManagedMoveError): a backward
 * move, or RUNNING → STARTING that does not advance to a later task of the pipeline.
 */
export function moveJob(db: Database, id: number, to: ManagedStatus, reason: string, now: number, patch: JobPatch = {}): ManagedJob {
  const cur = getJob(db, id);
  if (!cur) throw new ManagedMoveError(`managed job ${id} does not exist (or its row is damaged)`);
  const problem = moveProblem(cur.status, to);
  if (problem) throw new ManagedMoveError(`managed job ${id}: ${problem}`);
  if (cur.status === 'RUNNING' && to === 'STARTING' && !((patch.taskIndex ?? cur.taskIndex) > cur.taskIndex)) {
    throw new ManagedMoveError(`managed job ${id}: RUNNING → STARTING only starts the next task of a pipeline`);
  }
  patchJob(db, id, patch, now, to);
  if (cur.status !== to) appendManagedEvent(db, id, cur.status, to, reason, now);
  return getJob(db, id)!;
}

/** Changes fields (and the status when given, unchecked: callers use moveJob). */
export function patchJob(db: Database, id: number, patch: JobPatch, now: number, status?: ManagedStatus): void {
  const sets = ['updated_at = ?'];
  const vals: SqlValue[] = [now];
  if (status) sets.push('status = ?'), vals.push(status);
  for (const [k, col] of Object.entries(COLUMNS) as [keyof JobPatch, string][]) {
    if (!(k in patch)) continue;
    sets.push(`${col} = ?`);
    vals.push((patch[k] ?? null) as SqlValue);
  }
  db.run(`UPDATE managed_jobs SET ${sets.join(', ')} WHERE id = ?`, [...vals, id]);
}

/** Marks the job for cancelling; false if it is unknown or already ended. */
export function requestCancel(db: Database, id: number, now: number): boolean {
  db.run(`UPDATE managed_jobs SET cancel_requested = 1, updated_at = ? WHERE id = ? AND status NOT IN
    ('SUCCEEDED','FAILED','FAILED_SETUP','FAILED_NO_RESOURCE','FAILED_CONTROLLER','CANCELLED')`, [now, id]);
  return db.getRowsModified() > 0;
}

export function appendManagedEvent(db: Database, jobId: number, from: ManagedStatus | null, to: ManagedStatus, reason: string, now: number): void {
  db.run('INSERT INTO managed_events (job_id, ts, from_status, to_status, reason) VALUES (?, ?, ?, ?, ?)', [jobId, now, from, to, reason.slice(0, 64 * 1024)]);
}

/** A job's status history, oldest first; damaged rows are skipped. */
export function listManagedEvents(db: Database, jobId: number): ManagedEvent[] {
  return rowsOf(db, 'SELECT * FROM managed_events WHERE job_id = ? ORDER BY id', [jobId])
    .filter((r) => !managedEventProblem(r))
    .map((r) => ({ id: r.id as number, jobId: r.job_id as number, ts: r.ts as number, from: r.from_status as ManagedStatus | null, to: r.to_status as ManagedStatus, reason: r.reason as string }));
}

function rowsOf(db: Database, sql: string, params: SqlValue[]): Record<string, unknown>[] {
  const stmt = db.prepare(sql);
  try {
    stmt.bind(params);
    const out: Record<string, unknown>[] = [];
    while (stmt.step()) out.push(stmt.getAsObject());
    return out;
  } finally {
    stmt.free();
  }
}

function toJob(r: Record<string, unknown>): ManagedJob {
  return {
    id: r.id as number, name: r.name as string, submittedAt: r.submitted_at as number, status: r.status as ManagedStatus,
    tasks: JSON.parse(r.tasks as string) as string[], envs: JSON.parse(r.envs as string) as Record<string, string>,
    taskIndex: r.task_index as number, recoveryCount: r.recovery_count as number, restartsOnErrors: r.restarts_on_errors as number,
    launches: r.launches as number, clusterName: r.cluster_name as string | null, clusterUid: r.cluster_uid as string | null,
    agentJobId: r.agent_job_id as number | null, region: r.region as string | null, lastError: r.last_error as string | null,
    startedAt: r.started_at as number | null, endedAt: r.ended_at as number | null, updatedAt: r.updated_at as number,
    cancelRequested: r.cancel_requested === 1, uploads: (r.uploads as string | null | undefined) ?? null,
  };
}
