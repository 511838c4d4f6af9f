"""jobs.db: connection settings, schema versions and in-place migrations, small helpers.

Schema history (PRAGMA user_version):
  1  jobs + meta tables (first agent).
  2  adds updated_seq (change counter for `queue --since`) with its index, and the
     cancel escalation columns kill_deadline / kill_done.
  3  adds nodes: the cluster nodes a started job holds (JSON list of node indices, head = 0;
     NULL means the head only, as every job of an older agent ran there).
  4  adds isolation (how the job's processes are found: cgroup2, cgroup1 or marker) and cgroup
     (the job's cgroup directory until it is removed), with a partial index for the cleanup.
  5  adds devices: the devices a started job holds per node and the variables naming them
     ({"alloc": {node: [[pool, slot, share]]}, "env": {node: {var: value}}}, devices.py);
     NULL for jobs of an older agent, which hold no device.
A newer agent migrates an older file in place inside one write transaction; rows of jobs
started by an older agent keep their driver pid/start/boot id, so they are tracked to the end.
"""
import json
import os
import sqlite3
import time

from .errors import AgentError
from .states import below, TERMINAL

SCHEMA_VERSION = 5

_V1 = """
CREATE TABLE jobs (
  job_id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT,
  user TEXT,
  status TEXT NOT NULL,
  submitted_at REAL NOT NULL,
  started_at REAL,
  ended_at REAL,
  exit_code INTEGER,
  reason TEXT,
  spec TEXT NOT NULL,
  cpus REAL NOT NULL DEFAULT 0,
  memory REAL NOT NULL DEFAULT 0,
  accelerators TEXT,
  num_nodes INTEGER NOT NULL DEFAULT 1,
  driver_pid INTEGER,
  driver_start INTEGER,
  boot_id TEXT
);
CREATE INDEX jobs_status ON jobs(status);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
"""

_V1_TO_V2 = """
ALTER TABLE jobs ADD COLUMN updated_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN kill_deadline REAL;
ALTER TABLE jobs ADD COLUMN kill_done INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET updated_seq = job_id;
CREATE INDEX jobs_seq ON jobs(updated_seq);
"""

_V2_TO_V3 = """
ALTER TABLE jobs ADD COLUMN nodes TEXT;
"""

_V3_TO_V4 = """
ALTER TABLE jobs ADD COLUMN isolation TEXT;
ALTER TABLE jobs ADD COLUMN cgroup TEXT;
CREATE INDEX jobs_cgroup ON jobs(job_id) WHERE cgroup IS NOT NULL;
"""

_V4_TO_V5 = """
ALTER TABLE jobs ADD COLUMN devices TEXT;
"""


def connect(paths):
    """Open (creating or migrating if needed) jobs.db; autocommit mode, explicit transactions."""
    paths.ensure()
    conn = sqlite3.connect(paths.db, timeout=30, isolation_level=None)
    for attempt in range(50):
        try:
            # WAL: readers never block the writer; NORMAL: no fsync per commit (WAL stays safe).
            if conn.execute('PRAGMA journal_mode').fetchone()[0].lower() != 'wal':
                conn.execute('PRAGMA journal_mode=WAL')
            conn.execute('PRAGMA synchronous=NORMAL')
            _migrate(conn)
            return conn
        except sqlite3.OperationalError as e:
            # Several agents creating a fresh file at once can race on the journal-mode switch.
            if 'locked' not in str(e) or attempt == 49:
                raise
            time.sleep(0.02)
    return conn


def user_version(conn):
    return conn.execute('PRAGMA user_version').fetchone()[0]


def check_version(conn):
    """Long-lived processes call this per request/tick: a newer agent may have migrated the
    file since we opened it, and old code must not keep writing to a newer schema."""
    v = user_version(conn)
    if v != SCHEMA_VERSION:
        raise AgentError('schema_too_new' if v > SCHEMA_VERSION else 'schema_unknown',
                         'jobs.db has schema version %d; this agent knows %d' % (v, SCHEMA_VERSION))


def _migrate(conn):
    if user_version(conn) == SCHEMA_VERSION:
        return
    conn.execute('BEGIN IMMEDIATE')
    try:
        v = user_version(conn)  # again, under the write lock: another agent may have done it
        if v > SCHEMA_VERSION:
            raise AgentError('schema_too_new',
                             'jobs.db has schema version %d; this agent knows up to %d '
                             '(a newer agent wrote it)' % (v, SCHEMA_VERSION))
        if v == 0:
            has_jobs = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='jobs'").fetchone()
            if has_jobs:
                raise AgentError('schema_unknown', 'jobs.db has a jobs table but no schema version')
            _script(conn, _V1)
            conn.execute("INSERT INTO meta(key, value) VALUES ('db_id', ?)",
                         (json.dumps(os.urandom(16).hex()),))
            v = 1
        if v == 1:
            _script(conn, _V1_TO_V2)
            v = 2
        if v == 2:
            _script(conn, _V2_TO_V3)
            v = 3
        if v == 3:
            _script(conn, _V3_TO_V4)
            v = 4
        if v == 4:
            _script(conn, _V4_TO_V5)
            v = 5
        conn.execute('PRAGMA user_version = %d' % v)
        conn.execute('COMMIT')
    except BaseException:
        conn.execute('ROLLBACK')
        raise


def _script(conn, sql):
    # executescript() would COMMIT the open transaction; run statement by statement instead.
    for stmt in sql.split(';'):
        if stmt.strip():
            conn.execute(stmt)


class write_txn(object):
    """BEGIN IMMEDIATE ... COMMIT; writers are serialized, so one seq per transaction is ordered."""

    def __init__(self, conn):
        self.conn = conn
        self._seq = None

    def __enter__(self):
        self.conn.execute('BEGIN IMMEDIATE')
        return self

    def seq(self):
        """The change counter value for every row this transaction touches (allocated lazily)."""
        if self._seq is None:
            self._seq = self.conn.execute(
                'SELECT COALESCE(MAX(updated_seq), 0) + 1 FROM jobs').fetchone()[0]
        return self._seq

    def __exit__(self, etype, evalue, tb):
        self.conn.execute('COMMIT' if etype is None else 'ROLLBACK')
        return False


def get_meta(conn, key, default=None):
    row = conn.execute('SELECT value FROM meta WHERE key = ?', (key,)).fetchone()
    return default if row is None else json.loads(row[0])


def set_meta(conn, key, value):
    conn.execute('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)', (key, json.dumps(value)))


def advance(conn, txn, job_id, status, reason=None, exit_code=None, now=None):
    """Move a job forward to `status`; a no-op (returns False) if it is already at or past it."""
    lower = below(status)
    terminal = status in TERMINAL
    now = time.time() if now is None else now
    cur = conn.execute(
        'UPDATE jobs SET status = ?, updated_seq = ?, reason = ?, '
        'exit_code = COALESCE(?, exit_code), '
        'ended_at = CASE WHEN ? THEN COALESCE(ended_at, ?) ELSE ended_at END '
        'WHERE job_id = ? AND status IN (%s)' % ','.join('?' * len(lower)),
        (status, txn.seq(), reason, exit_code, 1 if terminal else 0, now, job_id) + tuple(lower))
    return cur.rowcount == 1


def db_exists(paths):
    return os.path.exists(paths.db)
