import type { Database } from 'sql.js';

/**
 * Migrations, in order; migration i brings the schema from version i to i+1. Never edit a
 * shipped one: add another. The version lives in PRAGMA user_version.
 */
const MIGRATIONS: string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE clusters (
     name TEXT PRIMARY KEY,
     uid TEXT NOT NULL UNIQUE,
     provider TEXT NOT NULL,
     region TEXT, zone TEXT,
     status TEXT NOT NULL,
     resources TEXT,            -- JSON: what was asked for and what was got
     num_nodes INTEGER NOT NULL DEFAULT 1,
     head_address TEXT, ssh_user TEXT, ssh_port INTEGER, ssh_key_path TEXT,
     handle TEXT,               -- JSON: provider-specific details (instance ids, pool hosts)
     launched_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     last_error TEXT,
     autostop_minutes INTEGER, autostop_down INTEGER NOT NULL DEFAULT 0,
     flags TEXT                 -- e.g. "termination-unconfirmed"
   );
   CREATE TABLE jobs (
     cluster TEXT NOT NULL,
     job_id INTEGER NOT NULL,
     name TEXT, user_name TEXT,
     status TEXT NOT NULL,
     submitted_at INTEGER, started_at INTEGER, ended_at INTEGER,
     exit_code INTEGER, reason TEXT, resources TEXT,
     PRIMARY KEY (cluster, job_id)
   );
   CREATE TABLE events (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     ts INTEGER NOT NULL,
     cluster TEXT, kind TEXT NOT NULL, message TEXT NOT NULL, data TEXT
   );
   CREATE INDEX events_cluster ON events(cluster, id);`,
  // Where a cluster lives: AWS account id, GCP project or Azure subscription (leak invariant 7).
  // NULL on rows written before it (and on ssh/local clusters): refresh decides (provision/account.ts).
  `ALTER TABLE clusters ADD COLUMN account TEXT;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function schemaVersion(db: Database): number {
  return Number(db.exec('PRAGMA user_version')[0].values[0][0]);
}

/** Applies pending migrations; returns true if anything changed. */
export function migrate(db: Database): boolean {
  const from = schemaVersion(db);
  if (from >= SCHEMA_VERSION) return false;
  db.exec('BEGIN');
  try {
    for (let v = from; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } catch (e) {
    db.exec('ROLLBACK');
    throw e;
  }
  return true;
}
