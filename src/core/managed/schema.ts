// The controller's own store: managed jobs and their status history. Migrations are
// append-only (as state/schema.ts); the version lives in PRAGMA user_version.
import type { Database } from 'sql.js';

const MIGRATIONS: string[] = [
  `CREATE TABLE managed_jobs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     name TEXT NOT NULL,
     submitted_at INTEGER NOT NULL,
     status TEXT NOT NULL,
     tasks TEXT NOT NULL,            -- JSON list of task YAML texts (a pipeline has several)
     envs TEXT NOT NULL,             -- JSON object: --env values given at submit
     task_index INTEGER NOT NULL DEFAULT 0,
     recovery_count INTEGER NOT NULL DEFAULT 0,
     restarts_on_errors INTEGER NOT NULL DEFAULT 0,
     launches INTEGER NOT NULL DEFAULT 0,  -- clusters launched so far; names the next one
     cluster_name TEXT,              -- the cluster this job owns (to adopt, watch or tear down)
     cluster_uid TEXT,               -- its uid once launched; NULL: launch intended, not recorded
     agent_job_id INTEGER,
     region TEXT,                    -- where the current cluster runs
     last_error TEXT,
     started_at INTEGER, ended_at INTEGER, updated_at INTEGER NOT NULL,
     cancel_requested INTEGER NOT NULL DEFAULT 0,
     created_by_user TEXT, created_by_machine TEXT
   );
   CREATE TABLE managed_events (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     job_id INTEGER NOT NULL,
     ts INTEGER NOT NULL,
     from_status TEXT, to_status TEXT NOT NULL,
     reason TEXT NOT NULL
   );
   CREATE INDEX managed_events_job ON managed_events(job_id, id);`,
  // The token of the job's copies of its local files on this machine (carryFiles.ts); NULL: none.
  'ALTER TABLE managed_jobs ADD COLUMN uploads TEXT;',
];

export const MANAGED_SCHEMA_VERSION = MIGRATIONS.length;

export function managedSchemaVersion(db: Database): number {
  return Number(db.exec('PRAGMA user_version')[0].values[0][0]);
}

/** Applies pending migrations; true if anything changed. */
export function migrateManaged(db: Database): boolean {
  const from = managedSchemaVersion(db);
  if (from >= MANAGED_SCHEMA_VERSION) return false;
  db.exec('BEGIN');
  try {
    for (let v = from; v < MANAGED_SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]);
    db.exec(`PRAGMA user_version = ${MANAGED_SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } catch (e) {
    db.exec('ROLLBACK');
    throw e;
  }
  return true;
}
