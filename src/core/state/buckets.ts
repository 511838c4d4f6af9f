import type { Database } from 'sql.js';
import type { StoreKind } from '../storage/types';
import { all, upsert } from './rows';
import { bucketRowProblem } from './bucketRowCheck';
import { printable } from './clusterName';

export type BucketStatus = 'CREATING' | 'READY' | 'DELETING';

/** A bucket Skydeck created (or is creating / deleting). */
export interface BucketRecord {
  store: StoreKind;
  name: string;
  /** Also the value of the bucket's BUCKET_TAGS.uid tag. */
  uid: string;
  /** JSON of BucketLocation. */
  location: string;
  persistent: number;
  /** The cluster whose down deletes it (non-persistent buckets); null: kept until deleted by hand. */
  owner_cluster_uid: string | null;
  status: BucketStatus;
  created_at: number;
  created_by_user: string | null;
  created_by_machine: string | null;
  last_error: string | null;
  /** JSON list of the Owners (provision/owner.ts) using the bucket now; null or absent: none. */
  users?: string | null;
}

export interface RefusedBucketRow {
  label: string;
  problem: string;
}

export class RefusedBucketRowError extends Error {
  constructor(readonly refused: RefusedBucketRow) {
    super(`the state row of bucket ${refused.label} is not one Skydeck wrote (${refused.problem}); it is ignored and nothing is done with it. ` +
      'If this workspace came from someone else, its .skydeck directory did too: delete .skydeck/state.db unless you created buckets from this workspace yourself');
    this.name = 'RefusedBucketRowError';
  }
}

const label = (r: Record<string, unknown>) => printable(`${String(r.store).slice(0, 16)}://${String(r.name).slice(0, 256)}`);

export function putBucket(db: Database, b: BucketRecord): void {
  const problem = bucketRowProblem(b as unknown as Record<string, unknown>);
  if (problem) throw new Error(`refusing to record bucket ${label(b as unknown as Record<string, unknown>)}: ${problem}`);
  upsert(db, 'buckets', { ...b });
}

/** The row of (store, name); undefined if none; RefusedBucketRowError if it fails the check. */
export function getBucket(db: Database, store: StoreKind, name: string): BucketRecord | undefined {
  const row = all<Record<string, unknown>>(db, 'SELECT * FROM buckets WHERE store = ? AND name = ?', [store, name])[0];
  if (!row) return undefined;
  const problem = bucketRowProblem(row);
  if (problem) throw new RefusedBucketRowError({ label: label(row), problem });
  return row as unknown as BucketRecord;
}

function allRows(db: Database): Record<string, unknown>[] {
  return all<Record<string, unknown>>(db, 'SELECT * FROM buckets ORDER BY created_at, store, name');
}

/** Every row that passes the check; the others are in listRefusedBuckets. */
export function listBuckets(db: Database): BucketRecord[] {
  return allRows(db).filter((r) => !bucketRowProblem(r)) as unknown as BucketRecord[];
}

export function listRefusedBuckets(db: Database): RefusedBucketRow[] {
  return allRows(db).flatMap((r) => {
    const problem = bucketRowProblem(r);
    return problem ? [{ label: label(r), problem }] : [];
  });
}

/** Sets the status (and error) of the row of `uid`; false if that row is gone. */
export function setBucketStatus(db: Database, uid: string, status: BucketStatus, lastError: string | null = null): boolean {
  db.run('UPDATE buckets SET status = ?, last_error = ? WHERE uid = ?', [status, lastError, uid]);
  return db.getRowsModified() > 0;
}

/**
 * Removes the row of `uid`: only after the store proved the bucket absent (or, for a CREATING
 * row, that it never came to exist). By uid: the name may belong to a newer row by then.
 */
export function deleteBucketRow(db: Database, uid: string): boolean {
  db.run('DELETE FROM buckets WHERE uid = ?', [uid]);
  return db.getRowsModified() > 0;
}
