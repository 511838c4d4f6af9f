import type { Database } from 'sql.js';
import { all, upsert } from './rows';
import { clusterRowProblem } from './rowCheck';
import { printable } from './clusterName';

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
  /** Who wrote the intent (creator.ts): user name and this machine's id; null on older rows. */
  created_by_user: string | null;
  created_by_machine: string | null;
  /** The cloud account the instances live in (AWS account id, GCP project, Azure subscription). */
  account: string | null;
}

/** A row that failed the read-time check (rowCheck.ts): shown with its problem, never acted on. */
export interface RefusedRow {
  /** The row's name, quoted and escaped for messages (it may hold anything). */
  label: string;
  problem: string;
}

/** Thrown when an operation names a cluster whose row failed the read-time check. */
export class RefusedRowError extends Error {
  constructor(readonly refused: RefusedRow) {
    super(refusedMessage(refused));
    this.name = 'RefusedRowError';
  }
}

export function refusedMessage(r: RefusedRow): string {
  return (
    `the state row of cluster ${r.label} is not one Skydeck wrote (${r.problem}); it is ignored and nothing is done with it. ` +
    `If this workspace came from someone else, its .skydeck directory did too: delete .skydeck/state.db (and .skydeck/local) ` +
    `unless you launched clusters from this workspace yourself`
  );
}

export function putCluster(db: Database, c: ClusterRecord): void {
  const problem = clusterRowProblem(c as unknown as Record<string, unknown>);
  // Writers refuse what readers would refuse: a bad name must never reach a path or config line.
  if (problem) throw new Error(`refusing to record cluster ${printable(c.name)}: ${problem}`);
  upsert(db, 'clusters', { ...c });
}

/** The named cluster's row; undefined if none; a RefusedRowError if its row fails the check. */
export function getCluster(db: Database, name: string): ClusterRecord | undefined {
  return checkedOne(db, 'SELECT * FROM clusters WHERE name = ?', name);
}

function checkedOne(db: Database, sql: string, key: string): ClusterRecord | undefined {
  const row = all<Record<string, unknown>>(db, sql, [key])[0];
  if (!row) return undefined;
  const problem = clusterRowProblem(row);
  if (problem) throw new RefusedRowError({ label: printable(row.name), problem });
  return row as unknown as ClusterRecord;
}

/** Every row that passes the read-time check; the others are in listRefusedClusters. */
export function listClusters(db: Database): ClusterRecord[] {
  return allRows(db).filter((r) => !clusterRowProblem(r)) as unknown as ClusterRecord[];
}

export function listRefusedClusters(db: Database): RefusedRow[] {
  return allRows(db).flatMap((r) => {
    const problem = clusterRowProblem(r);
    return problem ? [{ label: printable(r.name), problem }] : [];
  });
}

function allRows(db: Database): Record<string, unknown>[] {
  return all<Record<string, unknown>>(db, 'SELECT * FROM clusters ORDER BY launched_at, name');
}

/** The row of one cluster uid, checked as getCluster checks rows. */
export function getClusterByUid(db: Database, uid: string): ClusterRecord | undefined {
  return checkedOne(db, 'SELECT * FROM clusters WHERE uid = ?', uid);
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
