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
