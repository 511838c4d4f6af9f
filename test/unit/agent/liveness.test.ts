import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  agentEnv,
  AgentFixture,
  baseProcs,
  isAlive,
  markedProcs,
  procStat,
  python,
  rowsById,
  sleep,
  waitStatus,
  waitUntil,
} from './helpers';

/** The daemon's guard (a detached sh that restarts a daemon killed outright), if any. */
function guardPid(base: string): number | null {
  const real = fs.realpathSync(base);
  for (const pid of baseProcs(base)) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv.includes('skydeck-guard') && argv.includes(real)) return pid;
    } catch {
      /* gone */
    }
  }
  return null;
}

/** A job's status and reason read from jobs.db itself: no agent process is involved. */
async function dbJob(base: string, id: number): Promise<{ status: string; reason: string | null }> {
  const out = await python(
    'import json,sqlite3,sys\n' +
      'c=sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)\n' +
      'print(json.dumps(c.execute("SELECT status, reason FROM jobs WHERE job_id=?", (int(sys.argv[2]),)).fetchone()))\n',
    [path.join(base, 'jobs.db'), String(id)],
  );
  const [status, reason] = JSON.parse(out);
  return { status, reason };
}

function daemonPid(base: string): number | null {
  try {
    return Number(fs.readFileSync(path.join(base, 'daemon.pid'), 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

describe('agent liveness', function () {
  this.timeout(30000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  it('a SIGKILLed driver (OOM stand-in) is FAILED_DRIVER with a reason, its processes killed', async () => {
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'sleep 600 & sleep 600; wait' });
    const row = await waitStatus(c, job_id, 'RUNNING');
    await waitUntil(() => markedProcs(fx.base, job_id).filter((p) => p.comm === 'sleep').length === 2, 5000, 'job runs');
    const users = markedProcs(fx.base, job_id).filter((p) => p.pid !== row.driver_pid);
    process.kill(row.driver_pid, 'SIGKILL');
    // Liveness with a generous bound (speed is bench/'s business).
    const failed = await waitStatus(c, job_id, 'FAILED_DRIVER', 30_000);
    assert.match(failed.reason, /driver \(pid \d+\) died/);
    await waitUntil(() => users.every((p) => !isAlive(p.pid)), 30_000, 'user processes killed');
  });

  it('issue 12.7: kill -9 of the daemon, then of a driver, with no client call: FAILED_DRIVER recorded, children gone', async () => {
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'sleep 600 & sleep 600; wait' });
    const row = await waitStatus(c, job_id, 'RUNNING');
    await waitUntil(() => markedProcs(fx.base, job_id).filter((p) => p.comm === 'sleep').length === 2, 5000, 'job runs');
    const children = markedProcs(fx.base, job_id).filter((p) => p.pid !== row.driver_pid);
    const daemon = await waitUntil(() => daemonPid(fx.base), 3000, 'daemon pid file');
    // No client is left: nothing can call the agent from here on.
    c.kill();
    await c.exited;
    process.kill(daemon, 'SIGKILL');
    await waitUntil(() => !isAlive(daemon), 2000, 'daemon dead');
    process.kill(row.driver_pid, 'SIGKILL');
    // Watched through the database file and the process table only.
    const failed = await waitUntil(async () => {
      const r = await dbJob(fx.base, job_id);
      return r.status === 'FAILED_DRIVER' ? r : null;
    }, 10000, 'FAILED_DRIVER in jobs.db', 200);
    assert.match(failed.reason!, /driver \(pid \d+\) died/);
    await waitUntil(() => children.every((p) => !isAlive(p.pid)), 3000, 'the job children killed');
    const again = daemonPid(fx.base);
    assert.ok(again && again !== daemon, 'a new daemon runs');
  });

  for (const read of ['queue', 'status', 'logs']) {
    it(`issue 12.7: the first ${read} after a driver kill, daemon dead, already reports FAILED_DRIVER`, async () => {
      // A long tick: the daemon does not look again (nor restart its guard) during the test.
      const env = agentEnv({ SKYDECK_TICK_INTERVAL: '60' });
      const c = fx.serve(env);
      const { job_id } = await c.call('submit', { run: 'sleep 600 & sleep 600; wait' });
      const row = await waitStatus(c, job_id, 'RUNNING');
      await waitUntil(() => markedProcs(fx.base, job_id).filter((p) => p.comm === 'sleep').length === 2, 5000, 'job runs');
      const children = markedProcs(fx.base, job_id).filter((p) => p.pid !== row.driver_pid);
      const daemon = await waitUntil(() => daemonPid(fx.base), 3000, 'daemon pid file');
      c.kill();
      await c.exited;
      // Its guard first (it would start a new daemon at once), then the daemon itself.
      const guard = await waitUntil(() => guardPid(fx.base), 3000, 'guard').catch(() => null);
      if (guard) process.kill(guard, 'SIGKILL');
      process.kill(daemon, 'SIGKILL');
      process.kill(row.driver_pid, 'SIGKILL');
      await waitUntil(() => !isAlive(daemon) && !isAlive(row.driver_pid) && (!guard || !isAlive(guard)), 2000, 'all dead');
      assert.equal((await dbJob(fx.base, job_id)).status, 'RUNNING', 'nobody has looked yet');
      if (read === 'queue') {
        const q = rowsById(await fx.cli(['queue'], undefined, env)).get(job_id);
        assert.equal(q.status, 'FAILED_DRIVER');
        assert.match(q.reason, /driver \(pid \d+\) died/);
      } else if (read === 'status') {
        const s = await fx.cli(['status'], undefined, env);
        assert.equal(s.counts.FAILED_DRIVER, 1);
        assert.equal(s.running, 0);
      } else {
        const r = await fx.run(['logs', String(job_id), '--follow'], { env });
        assert.equal(r.code, 0);
        const fin = JSON.parse(r.stderr);
        assert.equal(fin.result.status, 'FAILED_DRIVER');
      }
      await waitUntil(() => children.every((p) => !isAlive(p.pid)), 3000, 'the job children killed');
    });
  }

  it('a changed boot id (node restart) fails every non-terminal job, pending ones included', async () => {
    const bootFile = path.join(fx.base, 'boot_id');
    fs.writeFileSync(bootFile, 'boot-A\n');
    const env = agentEnv({ SKYDECK_BOOT_ID_PATH: bootFile, SKYDECK_TICK_INTERVAL: '60' });
    const c = fx.serve(env);
    await c.call('configure', { capacity: { cpus: 1 } });
    const running = (await c.call('submit', { run: 'sleep 600', resources: { cpus: 1 } })).job_id;
    const pending = (await c.call('submit', { run: 'sleep 600', resources: { cpus: 1 } })).job_id;
    await waitStatus(c, running, 'RUNNING');
    const done = (await c.call('status')).counts;
    assert.equal(done.PENDING, 1);
    fs.writeFileSync(bootFile, 'boot-B\n');
    const tick = await c.call('tick');
    for (const id of tick.failed) assert.ok([running, pending].includes(id));
    const r1 = await waitStatus(c, running, 'FAILED_DRIVER');
    const r2 = await waitStatus(c, pending, 'FAILED_DRIVER');
    assert.match(r1.reason, /restarted/);
    assert.match(r2.reason, /restarted/);
    await waitUntil(() => markedProcs(fx.base).length === 0, 2000, 'leftovers killed');
    // New work runs normally under the new boot.
    const fresh = (await c.call('submit', { run: 'true', resources: { cpus: 1 } })).job_id;
    await waitStatus(c, fresh, 'SUCCEEDED');
  });

  it('a driver pid reused by another process is FAILED_DRIVER, and that process is left alone', async () => {
    const c = fx.serve(agentEnv({ SKYDECK_TICK_INTERVAL: '60' }));
    const { job_id } = await c.call('submit', { run: 'sleep 600' });
    await waitStatus(c, job_id, 'RUNNING');
    // A stranger (no marker) now "has" the driver's pid: point the row at it, with the
    // driver's recorded start time, as a reused pid would look. Start times count 10 ms ticks:
    // one started in the driver's own tick would pass for it, which a reused pid never does.
    await sleep(30);
    const stranger = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      await python(
        'import sqlite3,sys\n' +
          'c=sqlite3.connect(sys.argv[1])\n' +
          'c.execute("UPDATE jobs SET driver_pid=? WHERE job_id=?", (int(sys.argv[2]), int(sys.argv[3])))\n' +
          'c.commit()\n',
        [path.join(fx.base, 'jobs.db'), String(stranger.pid), String(job_id)],
      );
      assert.notEqual(procStat(stranger.pid!)!.start, undefined);
      // The daemon's first sweep may get there before this tick does; either way it is failed once.
      const tick = await c.call('tick');
      assert.ok(tick.failed.length === 0 || (tick.failed.length === 1 && tick.failed[0] === job_id));
      const row = await waitStatus(c, job_id, 'FAILED_DRIVER');
      assert.match(row.reason, /now belongs to another process/);
      assert.ok(isAlive(stranger.pid!), 'the unrelated process was not signalled');
      await waitUntil(() => markedProcs(fx.base, job_id).length === 0, 2000, 'job processes killed');
    } finally {
      stranger.kill('SIGKILL');
    }
  });

  it('a job claimed but never given a driver (its starter killed mid-batch) is FAILED_DRIVER after the claim timeout, whatever of it runs killed', async () => {
    const c = fx.serve(agentEnv({ SKYDECK_TICK_INTERVAL: '60' }));
    const { job_id } = await c.call('submit', { run: 'sleep 600' });
    await waitStatus(c, job_id, 'RUNNING');
    await waitUntil(() => markedProcs(fx.base, job_id).some((p) => p.comm === 'sleep'), 3000, 'the job runs');
    // As a launcher killed after its fork, before its answer, leaves it: claimed 31 s ago
    // (scheduler.CLAIM_TIMEOUT is 30), no driver recorded, the job's processes running.
    await python(
      'import sqlite3,sys,time\n' +
        'c=sqlite3.connect(sys.argv[1])\n' +
        'c.execute("UPDATE jobs SET driver_pid=NULL, driver_start=NULL, started_at=? WHERE job_id=?", (time.time() - 31, int(sys.argv[2])))\n' +
        'c.commit()\n',
      [path.join(fx.base, 'jobs.db'), String(job_id)],
    );
    await c.call('tick');
    const row = await waitStatus(c, job_id, 'FAILED_DRIVER');
    assert.match(row.reason, /no driver was recorded for it: the agent, or its launcher, ended while starting it/);
    await waitUntil(() => markedProcs(fx.base, job_id).length === 0, 3000, 'the job and its unrecorded driver killed');
  });

  it('the daemon is restarted by the next agent call if it died, and exits by itself when idle', async () => {
    const c = fx.serve(agentEnv({ SKYDECK_DAEMON_IDLE_EXIT: '1' }));
    const { job_id } = await c.call('submit', { run: 'sleep 600' });
    await waitStatus(c, job_id, 'RUNNING');
    const first = await waitUntil(() => daemonPid(fx.base), 3000, 'daemon pid file');
    assert.ok(isAlive(first));
    // The daemon is detached: own session, not a child of the agent.
    assert.equal(procStat(first)!.sid, first);
    assert.notEqual(procStat(first)!.ppid, c.proc.pid);
    process.kill(first, 'SIGKILL');
    await waitUntil(() => !isAlive(first), 2000, 'daemon dead');
    await c.call('queue', {});
    const second = await waitUntil(() => {
      const p = daemonPid(fx.base);
      return p && p !== first && isAlive(p) ? p : null;
    }, 3000, 'daemon restarted');
    // It never listens on a port.
    const fds = fs.readdirSync(`/proc/${second}/fd`).map((f) => {
      try {
        return fs.readlinkSync(`/proc/${second}/fd/${f}`);
      } catch {
        return '';
      }
    });
    assert.equal(fds.filter((l) => l.startsWith('socket:')).length, 0);
    await c.call('cancel', { job_ids: [job_id], grace: 0 });
    await waitUntil(() => !isAlive(second), 6000, 'idle daemon exits');
    assert.equal(fs.existsSync(path.join(fx.base, 'daemon.pid')), false);
  });
  it('shutdown is refused while a job runs; afterwards it kills what cancel left and stops the daemon', async () => {
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'trap "" TERM; while true; do sleep 1; done' });
    await waitUntil(() => markedProcs(fx.base, job_id).some((p) => p.comm === 'sleep'), 5000, 'job runs');
    const refused = await c.request('shutdown');
    assert.equal(refused.ok, false);
    assert.equal(refused.error!.code, 'busy');
    assert.deepEqual(refused.error!.details.job_ids, [job_id]);
    // Cancelled with a long grace: terminal at once, but its processes ignore SIGTERM.
    await c.call('cancel', { job_ids: [job_id], grace: 60 });
    const daemon = await waitUntil(() => daemonPid(fx.base), 3000, 'daemon pid file');
    assert.ok(markedProcs(fx.base, job_id).length > 0);
    const r = await c.call('shutdown');
    assert.deepEqual(r.escalated, [job_id]);
    assert.equal(r.stopped, true);
    assert.equal(r.daemon_pid, daemon);
    assert.ok(!isAlive(daemon));
    await waitUntil(() => markedProcs(fx.base, job_id).length === 0, 2000, 'leftovers killed');
  });
});
