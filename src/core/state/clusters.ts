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

export function getClusterByUid(db: Database, uid: string): ClusterRecord | undefined {
  return one<ClusterRecord>(db, 'SELECT * FROM clusters WHERE uid = ?', [uid]);
}

/**
 * Removes the row (and cached jobs) of one cluster uid. Leak invariant 4: only teardown and
 * refresh may call this, and only after the provider confirmed every instance of the uid is
 * terminating or terminated. By uid, never by name: the name may already belong to a newer
 * launch (invariant 6). Returns whether a row was removed.
 */
export function deleteClusterAfterProof(db: Database, uid: string): boolean {
  db.run('DELETE FROM clusters WHERE uid = ?', [uid]);
  const removed = db.getRowsModified() > 0;
  db.run('DELETE FROM jobs WHERE cluster_uid = ?', [uid]);
  return removed;
}
