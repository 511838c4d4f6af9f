import { randomUUID } from 'node:crypto';
import type { Database } from 'sql.js';
import { one } from './rows';

/** The workspace id if one was recorded (a read: no write needed). */
export function knownWorkspaceId(db: Database): string | undefined {
  return one<{ value: string }>(db, "SELECT value FROM meta WHERE key = 'workspace_id'")?.value;
}

/**
 * This workspace's id, created on first use. Every cloud instance is tagged with it, so the
 * leak sweep can tell this workspace's strays from another workspace's.
 */
export function workspaceId(db: Database): string {
  const found = one<{ value: string }>(db, "SELECT value FROM meta WHERE key = 'workspace_id'");
  if (found) return found.value;
  const id = randomUUID().slice(0, 8);
  db.run("INSERT INTO meta (key, value) VALUES ('workspace_id', ?)", [id]);
  return id;
}
