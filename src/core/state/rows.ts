import type { Database, SqlValue } from 'sql.js';

/** Runs a query and returns rows as plain objects keyed by column name. */
export function all<T>(db: Database, sql: string, params: SqlValue[] = []): T[] {
  const stmt = db.prepare(sql);
  try {
    stmt.bind(params);
    const out: T[] = [];
    while (stmt.step()) out.push(stmt.getAsObject() as T);
    return out;
  } finally {
    stmt.free();
  }
}

export function one<T>(db: Database, sql: string, params: SqlValue[] = []): T | undefined {
  return all<T>(db, sql, params)[0];
}

/** Inserts or replaces `row` into `table`; column names come from code, never from users. */
export function upsert(db: Database, table: string, row: Record<string, SqlValue>): void {
  const cols = Object.keys(row);
  const sql = `INSERT OR REPLACE INTO ${table} (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`;
  db.run(sql, cols.map((c) => row[c]));
}
