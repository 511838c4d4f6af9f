import { TERMINAL_STATUSES, type JobRow, type JobStatus } from '../../core/jobs/protocol';
import type { JobEnd } from '../jobEvents';

/** Far more jobs than a window ever learns the end of between two polls; bounds a flood. */
const MAX_KEPT = 10_000;

export const isTerminal = (status: string): boolean => TERMINAL_STATUSES.has(status as JobStatus);

/** The row as it reads once the job has ended. */
export function endedRow(row: JobRow, end: JobEnd, now: number): JobRow {
  return { ...row, status: end.status as JobStatus, exit_code: end.exitCode, reason: end.reason, ended_at: end.endedAt ?? row.ended_at ?? now };
}

/**
 * Ends the model learned outside its polls (a log panel, a watch, a cancel), by cluster uid (a
 * relaunched cluster of the same name numbers its jobs from 1 again). A queue that was asked just
 * before the job ended still says RUNNING: its answer must not undo what the window already shows.
 * An entry goes once the agent's own queue says the job ended (the agent's word then stands).
 */
export class EndedJobs {
  private readonly ends = new Map<string, JobEnd>();

  record(uid: string, end: JobEnd): void {
    if (!isTerminal(end.status)) return;
    if (this.ends.size >= MAX_KEPT) this.ends.delete(this.ends.keys().next().value as string);
    this.ends.set(`${uid}\u0000${end.jobId}`, end);
  }

  /** `rows` with the recorded ends over rows the agent still reports unfinished. */
  apply(uid: string, rows: JobRow[], now: number): JobRow[] {
    return rows.map((r) => {
      const key = `${uid}\u0000${r.job_id}`;
      const end = this.ends.get(key);
      if (!end) return r;
      if (isTerminal(r.status)) {
        this.ends.delete(key);
        return r;
      }
      return endedRow(r, end, now);
    });
  }

  /** Forgets the ends of clusters no longer listed. */
  keepOnly(uids: ReadonlySet<string>): void {
    for (const k of [...this.ends.keys()]) if (!uids.has(k.slice(0, k.indexOf('\u0000')))) this.ends.delete(k);
  }
}

/** Jobs `before` showed unfinished that `rows` show ended: what a reload learned. */
export function newlyEnded(cluster: string, before: readonly JobRow[] | undefined, rows: readonly JobRow[]): JobEnd[] {
  if (!before) return [];
  const was = new Map(before.map((b) => [b.job_id, b.status]));
  return rows
    .filter((r) => { const w = was.get(r.job_id); return w !== undefined && !isTerminal(w) && isTerminal(r.status); })
    .map((r) => ({ cluster, jobId: r.job_id, status: r.status, exitCode: r.exit_code, reason: r.reason, endedAt: r.ended_at, source: 'poll' as const }));
}
