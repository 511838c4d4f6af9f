import type { Database } from 'sql.js';
import { all } from './rows';

export interface EventRecord {
  id: number;
  ts: number;
  cluster: string | null;
  kind: string;
  message: string;
  data: string | null;
}

/** The events log is append-only: there is deliberately no update or delete here. */
export function appendEvent(
  db: Database,
  e: { cluster?: string; kind: string; message: string; data?: unknown; ts?: number },
): void {
  db.run('INSERT INTO events (ts, cluster, kind, message, data) VALUES (?,?,?,?,?)', [
    e.ts ?? Date.now(),
    e.cluster ?? null,
    e.kind,
    e.message,
    e.data === undefined ? null : JSON.stringify(e.data),
  ]);
}

export function listEvents(db: Database, cluster?: string, limit = 200): EventRecord[] {
  return cluster === undefined
    ? all<EventRecord>(db, 'SELECT * FROM events ORDER BY id DESC LIMIT ?', [limit])
    : all<EventRecord>(db, 'SELECT * FROM events WHERE cluster = ? ORDER BY id DESC LIMIT ?', [cluster, limit]);
}
