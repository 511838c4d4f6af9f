import type { Database } from 'sql.js';
import { all, one, upsert } from './rows';

export type ClusterStatus = 'INIT' | 'UP' | 'STOPPED';

export interface ClusterRecord {
  name: string;
  uid: string;
  provider: string;
  region: string | null;
  zone: string | null;
  status: ClusterStatus;
  resources: string | null;
  num_nodes: number;
  head_address: string | null;
  ssh_user: string | null;
  ssh_port: number | null;
  ssh_key_path: string | null;
  handle: string | null;
  launched_at: number;
  updated_at: number;
  last_error: string | null;
  autostop_minutes: number | null;
  autostop_down: number;
  flags: string | null;
  /** The cloud account the instances live in (AWS account id, GCP project, Azure subscription). */
  account: string | null;
}

export function putCluster(db: Database, c: ClusterRecord): void {
  upsert(db, 'clusters', { ...c });
}

export function getCluster(db: Database, name: string): ClusterRecord | undefined {
  return one<ClusterRecord>(db, 'SELECT * FROM clusters WHERE name = ?', [name]);
}

export function listClusters(db: Database): ClusterRecord[] {
  return all<ClusterRecord>(db, 'SELECT * FROM clusters ORDER BY launched_at, name');
}

/**
 * Removes a cluster row. Leak invariant 4: only teardown and refresh may call this, and only
 * after the provider confirmed every instance of the uid is terminating or terminated.
 */
export function deleteClusterAfterProof(db: Database, name: string): void {
  db.run('DELETE FROM clusters WHERE name = ?', [name]);
  db.run('DELETE FROM jobs WHERE cluster = ?', [name]);
}
