import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentFixture, AGENT, dumpDb, markerPrefix, PY, python, rowsById, waitStatus, waitUntil, isAlive } from './helpers';

// jobs.db as the first agent (schema version 1) left it: no change counter, no cancel
// escalation columns. Kept here verbatim as a fixture.
const V1_DDL = `
CREATE TABLE jobs (
  job_id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT, user TEXT, status TEXT NOT NULL,
  submitted_at REAL NOT NULL, started_at REAL, ended_at REAL,
  exit_code INTEGER, reason TEXT, spec TEXT NOT NULL,
  cpus REAL NOT NULL DEFAULT 0, memory REAL NOT NULL DEFAULT 0, accelerators TEXT,
  num_nodes INTEGER NOT NULL DEFAULT 1,
  driver_pid INTEGER, driver_start INTEGER, boot_id TEXT
);
CREATE INDEX jobs_status ON jobs(status);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
`;

// Builds a v1 database with a job RUNNING under an "old driver" (a detached sh in its own
// session that reports through `_done` like every driver does), plus one PENDING job.
const FIXTURE = `
import json, os, sqlite3, sys, time
base, agent, py, marker, ddl = sys.argv[1:6]
os.makedirs(os.path.join(base, 'logs', '1'))
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    pid = os.fork()
    if pid == 0:
        log = os.open(os.path.join(base, 'logs', '1', 'run.log'), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        os.dup2(log, 1); os.dup2(log, 2)
        env = dict(os.environ, SKYDECK_JOB_MARKER=marker + ':1')
        script = ('while [ ! -e "$1/release" ]; do sleep 0.05; done; echo old-job-output; '
                  'unset SKYDECK_JOB_MARKER; exec "$3" "$2" --base "$1" _done 1 0 run')
        os.execve('/bin/sh', ['sh', '-c', script, 'old-driver', base, agent, py], env)
    os.write(w, str(pid).encode()); os._exit(0)
os.close(w)
pid = int(os.read(r, 64)); os.wait()
start = int(open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()[19])
boot = open('/proc/sys/kernel/random/boot_id').read().strip()
c = sqlite3.connect(os.path.join(base, 'jobs.db'))
c.executescript(ddl)
c.execute("INSERT INTO meta VALUES ('db_id', ?)", (json.dumps('old-db'),))
now = time.time()
spec = {'name': 'old', 'user': 'alice', 'setup': None, 'run': 'echo old', 'envs': {},
        'workdir': None, 'resources': {'cpus': 0.5, 'memory': 0.0, 'accelerators': None},
        'num_nodes': 1}
c.execute("INSERT INTO jobs (job_id, name, user, status, submitted_at, started_at, spec, cpus,"
          " driver_pid, driver_start, boot_id) VALUES (1, 'old', 'alice', 'RUNNING', ?, ?, ?, 0.5, ?, ?, ?)",
          (now, now, json.dumps(spec), pid, start, boot))
spec2 = dict(spec, name='queued', run='echo new-agent-ran-me')
c.execute("INSERT INTO jobs (job_id, name, user, status, submitted_at, spec, cpus, boot_id)"
          " VALUES (2, 'queued', 'alice', 'PENDING', ?, ?, 0.5, ?)", (now, json.dumps(spec2), boot))
c.execute('PRAGMA user_version = 1')
c.commit()
print(pid)
`;

describe('agent schema upgrade', function () {
  this.timeout(30000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  it('migrates a version-1 jobs.db in place; a job running under the old agent is tracked to the end', async () => {
    const oldDriver = Number(await python(FIXTURE, [fx.base, AGENT, PY, markerPrefix(fx.base), V1_DDL]));
    assert.ok(isAlive(oldDriver));
    assert.match(await dumpDb(fx.base), /^1\n/);

    const q = await fx.cli(['queue']);
    assert.match(await dumpDb(fx.base), /^5\n/, 'user_version is now 5');
    assert.equal(q.db_id, 'old-db', 'same database, migrated in place');
    let rows = rowsById(q);
    assert.equal(rows.get(1).status, 'RUNNING');
    assert.equal(rows.get(1).driver_pid, oldDriver);
    assert.ok(q.cursor >= 2, 'change counter backfilled');

    // The liveness sweep recognises the old driver as alive (pid + start time + boot id).
    const c = fx.serve();
    const tick = await c.call('tick');
    assert.deepEqual(tick.failed, []);
    assert.equal((await waitStatus(c, 1, 'RUNNING')).status, 'RUNNING');
    // The old agent's pending job is scheduled by the new one.
    await waitStatus(c, 2, 'SUCCEEDED');
    assert.equal((await c.logs({ job_id: 2 })).data.toString(), 'new-agent-ran-me\n');

    const before = await c.call('queue', {});
    fs.writeFileSync(path.join(fx.base, 'release'), '');
    const done = await waitStatus(c, 1, 'SUCCEEDED');
    assert.equal(done.exit_code, 0);
    assert.equal((await c.logs({ job_id: 1 })).data.toString(), 'old-job-output\n');
    const delta = await c.call('queue', { since: before.cursor, db_id: before.db_id });
    assert.deepEqual(delta.rows.map((r: number[]) => r[0]), [1]);
    await waitUntil(() => !isAlive(oldDriver), 3000, 'old driver exits');
    rows = rowsById(await c.call('queue', {}));
    assert.equal(rows.size, 2);
  });

  it('refuses a database written by a newer agent, and leaves it alone', async () => {
    await fx.cli(['submit'], { run: 'true' });
    const c = fx.serve();
    await waitStatus(c, 1, 'SUCCEEDED');
    await c.close();
    await python(
      'import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute("PRAGMA user_version = 99")\nc.commit()\n',
      [path.join(fx.base, 'jobs.db')],
    );
    const before = await dumpDb(fx.base);
    const r = await fx.run(['queue']);
    assert.equal(r.code, 1);
    assert.equal(r.json!.error!.code, 'schema_too_new');
    const s = await fx.run(['submit'], { input: '{"run":"true"}' });
    assert.equal(s.json!.error!.code, 'schema_too_new');
    assert.equal(await dumpDb(fx.base), before);
  });
});
