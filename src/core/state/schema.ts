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
  // Who wrote each cluster's intent (creator.ts): only rows this machine wrote are acted on
  // without the user asking. Older rows stay NULL: not attributable.
  `ALTER TABLE clusters ADD COLUMN created_by_user TEXT;
   ALTER TABLE clusters ADD COLUMN created_by_machine TEXT;`,
  // Jobs belong to one cluster incarnation (its uid), not to a name a later launch may reuse:
  // a down deletes the jobs of the uid it proved gone, never a newer cluster's. Cached rows
  // of a name whose row is gone have no owner and are dropped.
  `CREATE TABLE jobs_by_uid (
     cluster_uid TEXT NOT NULL,
     cluster TEXT NOT NULL,
     job_id INTEGER NOT NULL,
     name TEXT, user_name TEXT,
     status TEXT NOT NULL,
     submitted_at INTEGER, started_at INTEGER, ended_at INTEGER,
     exit_code INTEGER, reason TEXT, resources TEXT,
     PRIMARY KEY (cluster_uid, job_id)
   );
   INSERT INTO jobs_by_uid (cluster_uid, cluster, job_id, name, user_name, status, submitted_at, started_at, ended_at, exit_code, reason, resources)
     SELECT c.uid, j.cluster, j.job_id, j.name, j.user_name, j.status, j.submitted_at, j.started_at, j.ended_at, j.exit_code, j.reason, j.resources
     FROM jobs j JOIN clusters c ON c.name = j.cluster;
   DROP TABLE jobs;
   ALTER TABLE jobs_by_uid RENAME TO jobs;`,
  // Where a cluster lives: AWS account id, GCP project or Azure subscription (leak invariant 7).
  // NULL on rows written before it (and on ssh/local clusters): refresh decides (provision/account.ts).
  `ALTER TABLE clusters ADD COLUMN account TEXT;`,
  // Buckets Skydeck creates (file_mounts `name:`). The row is written (CREATING) before the
  // cloud call, so a crash mid-create leaves a row that reconcile resolves; owner_cluster_uid is
  // the cluster whose down deletes a non-persistent bucket.
  `CREATE TABLE buckets (
     store TEXT NOT NULL,
     name TEXT NOT NULL,
     uid TEXT NOT NULL UNIQUE,
     location TEXT NOT NULL,    -- JSON: BucketLocation
     persistent INTEGER NOT NULL,
     owner_cluster_uid TEXT,
     status TEXT NOT NULL,      -- CREATING | READY | DELETING
     created_at INTEGER NOT NULL,
     created_by_user TEXT, created_by_machine TEXT,
     last_error TEXT,
     PRIMARY KEY (store, name)
   );`,
  // The launches filling or attaching a bucket right now (JSON list of provision Owners): a down
  // or delete leaves a bucket alone while one of them is alive (ops/bucketUsers.ts).
  `ALTER TABLE buckets ADD COLUMN users TEXT;`,
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

/** Table name → its column names. */
export function tableShape(db: Database): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values ?? [];
  for (const [t] of tables) {
    const cols = db.exec(`PRAGMA table_info(${JSON.stringify(String(t))})`)[0]?.values ?? [];
    out.set(String(t), cols.map((c) => String(c[1])));
  }
  return out;
}

/** What `db` lacks of the shape `expected` (tables and columns), or undefined if nothing. */
export function missingFromShape(db: Database, expected: Map<string, string[]>): string | undefined {
  const have = tableShape(db);
  for (const [table, cols] of expected) {
    if (table.startsWith('sqlite_')) continue;
    const found = have.get(table);
    if (!found) return `it has no table "${table}"`;
    const lacking = cols.filter((c) => !found.includes(c));
    if (lacking.length) return `table "${table}" lacks column(s) ${lacking.join(', ')}`;
  }
  return undefined;
}
