import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import type { Database, SqlJsStatic } from 'sql.js';
import { StateVersionError } from './errors';
import { checkSqliteImage } from './integrity';
import { missingFromShape, tableShape } from './schema';

// Reading a saved sql.js image that may be damaged or come from elsewhere, shared by the
// workspace state (stateStore.ts) and the managed-jobs store (managed/store.ts): both move a
// damaged file aside and start fresh, and refuse one written by a newer Skydeck.

export interface ImageSchema {
  /** The version the image says it is at (0: none). */
  version(db: Database): number;
  latest: number;
  /** Brings the image up to `latest`; true if it changed. */
  migrate(db: Database): boolean;
  /** "schema v3": named in a damage message. */
  label(found: number): string;
}

/** The image migrated and whole, or what is wrong with it. A newer version throws StateVersionError. */
export type ImageRead = { db: Database; changed: boolean; problem?: undefined } | { problem: string };

/** The tables and columns a fresh image has after `migrate`, built once per schema. */
export function shapeOf(SQL: () => Promise<SqlJsStatic>, migrate: (db: Database) => unknown): () => Promise<Map<string, string[]>> {
  let shape: Promise<Map<string, string[]>> | undefined;
  return () => (shape ??= SQL().then((sql) => {
    const db = new sql.Database();
    try {
      migrate(db);
      return tableShape(db);
    } finally {
      db.close();
    }
  }));
}

/**
 * Per schema and file, the digest of the last image this process checked whole (or saved
 * itself): the same bytes again skip the integrity check, migrations and shape check, which
 * are most of opening the state (a long-lived process — the editor, a holder's CLI worker —
 * opens it often). Any other byte is checked in full. Kept in memory only.
 */
const checked = new WeakMap<ImageSchema, Map<string, string>>();
const digest = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Records `bytes` as a whole image of `schema` at `file` (this process just wrote them). */
export function rememberChecked(schema: ImageSchema, file: string, bytes: Uint8Array): void {
  let m = checked.get(schema);
  if (!m) checked.set(schema, (m = new Map()));
  m.set(file, digest(bytes));
}

export async function readCheckedImage(SQL: SqlJsStatic, file: string, bytes: Buffer, schema: ImageSchema, shape: () => Promise<Map<string, string[]>>): Promise<ImageRead> {
  if (checked.get(schema)?.get(file) === digest(bytes)) {
    try {
      return { db: new SQL.Database(bytes), changed: false };
    } catch { /* checked in full below */ }
  }
  const problem = checkSqliteImage(bytes);
  if (problem) return { problem };
  let db: Database;
  try {
    db = new SQL.Database(bytes);
  } catch (e) {
    return { problem: `SQLite could not read it: ${(e as Error).message}` };
  }
  const fail = (p: string): ImageRead => {
    db.close();
    return { problem: p };
  };
  let found: number;
  try {
    const check = String(db.exec('PRAGMA quick_check')[0]?.values[0]?.[0]);
    if (check !== 'ok') return fail(`SQLite integrity check failed: ${check}`);
    found = schema.version(db);
  } catch (e) {
    return fail(`SQLite could not read it: ${(e as Error).message}`);
  }
  if (found > schema.latest) {
    db.close();
    throw new StateVersionError(file, found, schema.latest);
  }
  // A readable image can still lack what its version promises (a table dropped by hand, a
  // file from elsewhere): that is damage too, found here rather than as "no such table".
  try {
    const changed = schema.migrate(db);
    const missing = missingFromShape(db, await shape());
    if (missing) return fail(missing);
    if (!changed) rememberChecked(schema, file, bytes);
    return { db, changed };
  } catch (e) {
    return fail(`its tables do not match ${schema.label(found)} (${(e as Error).message})`);
  }
}

/** Renames a damaged file out of the way; returns where it went. */
export function moveAsideDamaged(file: string): string {
  const movedTo = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  fs.renameSync(file, movedTo);
  return movedTo;
}
