// Which live operations use a bucket now (the row's `users` column), so that a down or a delete
// never empties a bucket a launch is uploading into, and a launch never fills one being deleted.
// Both sides decide inside one state transaction: the launch adds itself only to a row that is
// not DELETING; the delete marks DELETING only a row without live users.
import type { Database } from 'sql.js';
import { getBucket, type BucketRecord } from '../state';
import { describeOwner, ownerState, sameOwner, type Owner } from '../provision/owner';
import type { StoreKind } from '../storage/types';

/** A user on another machine cannot be checked; after this long it no longer counts. */
const FOREIGN_USER_MS = 6 * 3600_000;

function parse(row: Pick<BucketRecord, 'users'>): unknown[] {
  try {
    const v: unknown = JSON.parse(row.users ?? '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/** The users still running (dead ones and malformed entries are dropped). */
export function liveUsers(row: Pick<BucketRecord, 'users'>, now = Date.now()): Owner[] {
  return parse(row).filter((o): o is Owner => {
    const st = ownerState(o);
    return st === 'alive' || (st === 'unknown' && now - (o as Owner).since < FOREIGN_USER_MS);
  });
}

export function describeUsers(users: Owner[]): string {
  return users.map((u) => describeOwner(u)).join('; ');
}

function write(db: Database, uid: string, users: Owner[]): void {
  db.run('UPDATE buckets SET users = ? WHERE uid = ?', [users.length ? JSON.stringify(users) : null, uid]);
}

/**
 * In a state transaction: adds `owner` to the row of (store, name) unless it is being deleted.
 * Returns the row as it was (undefined if none); its status says whether `owner` was added.
 */
export function joinBucket(db: Database, store: StoreKind, name: string, owner: Owner): BucketRecord | undefined {
  const row = getBucket(db, store, name);
  if (row && row.status !== 'DELETING') write(db, row.uid, [...liveUsers(row), owner]);
  return row;
}

/** Takes `owner` off the row of `uid` (if the row is still there). */
export function leaveBucket(db: Database, store: StoreKind, name: string, uid: string, owner: Owner): void {
  const row = getBucket(db, store, name);
  if (row?.uid === uid) write(db, uid, liveUsers(row).filter((u) => !sameOwner(u, owner)));
}
