import type { Database } from 'sql.js';
import { all, upsert } from './rows';

/** The host-side cache of a cluster's queue; the head node's agent is the source of truth. */
export interface JobRecord {
  /** The cluster incarnation the job ran on; `cluster` is its name for display. */
  cluster_uid: string;
  cluster: string;
  job_id: number;
  name: string | null;
  user_name: string | null;
  status: string;
  submitted_at: number | null;
  started_at: number | null;
  ended_at: number | null;
  exit_code: number | null;
  reason: string | null;
  resources: string | null;
}

export function putJobs(db: Database, jobs: JobRecord[]): void {
  for (const j of jobs) upsert(db, 'jobs', { ...j });
}

export function listJobs(db: Database, clusterUid: string): JobRecord[] {
  return all<JobRecord>(db, 'SELECT * FROM jobs WHERE cluster_uid = ? ORDER BY job_id DESC', [clusterUid]);
}

/**
 * The cached jobs of `clusterUid` that had not ended become FAILED_DRIVER: their driver ran on
 * a head that is gone, so no agent will ever report their end. Returns the job ids marked.
 */
export function failJobsOfLostHead(db: Database, clusterUid: string, reason: string, endedAtSec: number): number[] {
  const open = all<{ job_id: number }>(db, "SELECT job_id FROM jobs WHERE cluster_uid = ? AND status IN ('INIT', 'PENDING', 'SETTING_UP', 'RUNNING')", [clusterUid]);
  for (const j of open) {
    db.run("UPDATE jobs SET status = 'FAILED_DRIVER', reason = ?, ended_at = COALESCE(ended_at, ?) WHERE cluster_uid = ? AND job_id = ?", [reason, endedAtSec, clusterUid, j.job_id]);
  }
  return open.map((j) => j.job_id);
}
