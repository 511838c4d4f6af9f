// The daemon's watch mode (agent watch.py): with only running drivers to watch it execs itself
// into a small sh (same pid), and everything the Python daemon did must still happen: dead
// drivers failed, new jobs watched, a killed watcher revived, TERM obeyed, autostop and kill
// escalations on time. Job states are read from jobs.db itself: an agent read would run the
// liveness check on its own and hide a watcher that missed something.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AGENT, agentEnv, AgentFixture, baseProcs, isAlive, markedProcs, python, ServeClient, sleep, waitStatus, waitUntil } from './helpers';

// Tick 0.3 s, 1 s in Python after a change before watching; the safety-net round limit stays
// at its default (60 s), so nothing here is caught by it.
const ENV = agentEnv({ SKYDECK_DAEMON_WATCH_HOLD: '1' });

function argvOf(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

function daemonPid(base: string): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(base, 'daemon.pid'), 'utf8').split(' ')[0]);
    return isAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** The daemon's pid while it is the watch-mode sh, with the driver pids it watches. */
function watching(base: string): { pid: number; drivers: number[] } | null {
  const pid = daemonPid(base);
  if (!pid) return null;
  const argv = argvOf(pid);
  const at = argv.indexOf('skydeck-watch');
  if (argv[0] !== '/bin/sh' || at < 0) return null;
  const pairs = argv.slice(at + 10, -1); // after $1..$9; cmdline ends with a NUL
  return { pid, drivers: pairs.filter((_, i) => i % 2 === 0).map(Number) };
}

function inPython(pid: number): boolean {
  return argvOf(pid).includes('_daemon');
}

function guardPid(base: string): number | null {
  for (const pid of baseProcs(base)) if (argvOf(pid).includes('skydeck-guard')) return pid;
  return null;
}

async function dbStatus(base: string, id: number): Promise<string> {
  return (
    await python(
      'import sqlite3,sys\n' +
        'c=sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)\n' +
        'print(c.execute("SELECT status FROM jobs WHERE job_id=?", (int(sys.argv[2]),)).fetchone()[0])\n',
      [path.join(base, 'jobs.db'), String(id)],
    )
  ).trim();
}

async function lockHeld(base: string): Promise<boolean> {
  const out = await python(
    'import fcntl,os,sys\n' +
      'fd=os.open(sys.argv[1], os.O_RDWR)\n' +
      'try:\n fcntl.flock(fd, fcntl.LOCK_EX|fcntl.LOCK_NB); print("free")\n' +
      'except OSError:\n print("held")\n',
    [path.join(base, 'daemon.lock')],
  );
  return out.trim() === 'held';
}

describe('agent daemon watch mode', function () {
  this.timeout(40000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  /** A running job and the daemon watching it from sh. */
  async function watchedJob(c: ServeClient, run = 'sleep 600'): Promise<{ id: number; driver: number; daemon: number }> {
    const { job_id } = await c.call('submit', { run });
    const row = await waitStatus(c, job_id, 'RUNNING');
    const w = await waitUntil(() => {
      const x = watching(fx.base);
      return x && x.drivers.includes(row.driver_pid) ? x : null;
    }, 10000, 'the daemon in watch mode');
    return { id: job_id, driver: row.driver_pid, daemon: w.pid };
  }

  it('with long-running jobs it becomes the sh watcher: same pid, lock and pid file kept', async () => {
    const c = fx.serve(ENV);
    const { job_id } = await c.call('submit', { run: 'sleep 600' });
    await waitStatus(c, job_id, 'RUNNING');
    const first = await waitUntil(() => daemonPid(fx.base), 3000, 'daemon pid file');
    assert.ok(inPython(first));
    const a = await watchedJob(c);
    assert.equal(a.daemon, first, 'the same process: exec, not a new daemon');
    assert.equal(watching(fx.base)!.drivers.length, 2);
    assert.ok(await lockHeld(fx.base), 'daemon.lock stays locked across the exec');
    // A client call finds the daemon running and starts no second one.
    await c.call('queue', {});
    await fx.cli(['tick']);
    await sleep(500);
    const daemons = baseProcs(fx.base).filter((p) => inPython(p) || argvOf(p).includes('skydeck-watch'));
    assert.deepEqual(daemons, [first]);
    // Its stderr still goes to daemon.log.
    assert.equal(fs.readlinkSync(`/proc/${first}/fd/2`), path.join(fs.realpathSync(fx.base), 'daemon.log'));
  });

  it('a driver killed -9 while it watches is FAILED_DRIVER within a few ticks', async () => {
    const c = fx.serve(ENV);
    const keep = await watchedJob(c);
    const a = await watchedJob(c);
    process.kill(a.driver, 'SIGKILL');
    await waitUntil(async () => (await dbStatus(fx.base, a.id)) === 'FAILED_DRIVER', 3000, 'FAILED_DRIVER');
    assert.equal(await dbStatus(fx.base, keep.id), 'RUNNING');
    assert.equal(daemonPid(fx.base), a.daemon);
  });

  it('a job that starts while it watches is watched too', async () => {
    const c = fx.serve(ENV);
    const a = await watchedJob(c);
    const guard = guardPid(fx.base);
    const { job_id } = await c.call('submit', { run: 'sleep 600' });
    const row = await waitStatus(c, job_id, 'RUNNING');
    // Woken by the start, back in watch mode with both drivers (not the old list).
    await waitUntil(() => watching(fx.base)?.drivers.includes(row.driver_pid), 5000, 'the new driver watched');
    assert.ok(watching(fx.base)!.drivers.includes(a.driver));
    assert.equal(watching(fx.base)!.pid, a.daemon);
    // Through Python and back: the one guard, adopted, not a second one started.
    assert.deepEqual(baseProcs(fx.base).filter((p) => argvOf(p).includes('skydeck-guard')), [guard]);
    process.kill(row.driver_pid, 'SIGKILL');
    await waitUntil(async () => (await dbStatus(fx.base, job_id)) === 'FAILED_DRIVER', 3000, 'FAILED_DRIVER');
  });

  it('a watcher killed -9 is revived by the guard, and the new daemon watches', async () => {
    const c = fx.serve(ENV);
    const a = await watchedJob(c);
    const guard = guardPid(fx.base);
    assert.ok(guard, 'the guard outlived the exec');
    process.kill(a.daemon, 'SIGKILL');
    const again = await waitUntil(() => {
      const p = daemonPid(fx.base);
      return p && p !== a.daemon ? p : null;
    }, 5000, 'a new daemon');
    await waitUntil(() => !isAlive(guard!), 3000, 'the old guard left after reviving');
    await waitUntil(() => watching(fx.base)?.pid === again, 10000, 'the new daemon watching');
    process.kill(a.driver, 'SIGKILL');
    await waitUntil(async () => (await dbStatus(fx.base, a.id)) === 'FAILED_DRIVER', 3000, 'FAILED_DRIVER');
  });

  it('a guard killed while it watches is replaced at once (the sh watches it too)', async () => {
    const c = fx.serve(ENV);
    const a = await watchedJob(c);
    const guard = guardPid(fx.base)!;
    process.kill(guard, 'SIGKILL');
    const next = await waitUntil(() => {
      const g = guardPid(fx.base);
      return g && g !== guard ? g : null;
    }, 3000, 'a new guard');
    await waitUntil(() => watching(fx.base)?.pid === a.daemon, 5000, 'watching again');
    // The new guard is the one kept: killing the watcher now still revives a daemon.
    process.kill(a.daemon, 'SIGKILL');
    await waitUntil(() => !isAlive(next) && daemonPid(fx.base) !== null && daemonPid(fx.base) !== a.daemon, 5000, 'revived');
  });

  it('TERM while it watches makes it leave like the Python daemon: no revive', async () => {
    const c = fx.serve(ENV);
    const a = await watchedJob(c);
    const guard = guardPid(fx.base)!;
    process.kill(a.daemon, 'SIGTERM');
    await waitUntil(() => !isAlive(a.daemon) && !isAlive(guard), 3000, 'watcher and guard gone');
    assert.equal(fs.existsSync(path.join(fx.base, 'daemon.pid')), false);
    assert.equal(await lockHeld(fx.base), false);
    await sleep(1500);
    assert.deepEqual(baseProcs(fx.base).filter((p) => inPython(p) || argvOf(p).includes('skydeck-watch')), []);
  });

  it('autostop configured while it watches takes effect when the job ends', async () => {
    const c = fx.serve(ENV);
    const flag = path.join(fx.base, 'autostop-ran');
    const a = await watchedJob(c, 'sleep 6');
    await c.call('configure', {
      autostop: { idle_minutes: 0, wait_for: 'jobs', command: ['/bin/sh', '-c', `echo ran > ${flag}`] },
    });
    // Woken out of watch mode, and it stays the Python daemon: the idle clock is its job.
    await waitUntil(() => inPython(a.daemon), 1500, 'back in Python');
    await sleep(1500);
    assert.ok(inPython(a.daemon), 'no watch mode while autostop is configured');
    assert.equal(fs.existsSync(flag), false);
    await waitUntil(() => fs.existsSync(flag), 10000, 'autostop command ran');
    assert.equal(await dbStatus(fx.base, a.id), 'SUCCEEDED');
  });

  it('a cancel while it watches still escalates to SIGKILL on time', async () => {
    const c = fx.serve(ENV);
    const a = await watchedJob(c, 'trap "" TERM; while true; do sleep 1; done');
    await waitUntil(() => markedProcs(fx.base, a.id).some((p) => p.comm === 'sleep'), 5000, 'job runs');
    const t0 = Date.now();
    await c.call('cancel', { job_ids: [a.id], grace: 1.5 });
    // TERM is ignored: only the daemon's SIGKILL at the deadline ends the job's processes.
    await waitUntil(() => markedProcs(fx.base, a.id).length === 0, 4000, 'killed after grace');
    const took = Date.now() - t0;
    assert.ok(took >= 1400, `not before the grace (${took} ms)`);
  });
  it('wakes at every moment, in and out of watch mode, kill neither the daemon nor its guard', async () => {
    // Hold 0: every wake sends it back to Python and the next sweep into sh again, so wakes
    // land in each exec's first instructions too (a trapped USR1 there killed the daemon).
    const c = fx.serve(agentEnv({ SKYDECK_DAEMON_WATCH_HOLD: '0' }));
    const a = await watchedJob(c);
    const guard = guardPid(fx.base);
    const seen = new Set<string>();
    const sample = setInterval(() => seen.add(inPython(a.daemon) ? 'python' : watching(fx.base) ? 'sh' : 'other'), 5);
    const hammer = python(
      'import os,sys,time\n' +
        'sys.path.insert(0, os.path.dirname(sys.argv[1]))\n' +
        'from skydeck_agent_lib import daemon_ctl\n' +
        'from skydeck_agent_lib.paths import Paths\n' +
        'p, n, end = Paths(sys.argv[2]), 0, time.time() + 4\n' +
        'while time.time() < end:\n daemon_ctl.wake(p); n += 1\n' +
        'print(n)\n',
      [AGENT, fx.base],
    );
    const sent = Number((await hammer).trim());
    clearInterval(sample);
    assert.ok(sent > 1000, `wakes sent: ${sent}`);
    assert.ok(seen.has('python') && seen.has('sh'), `it went back and forth: ${[...seen]}`);
    assert.ok(isAlive(a.daemon) && daemonPid(fx.base) === a.daemon, 'the same daemon lives');
    assert.equal(guardPid(fx.base), guard, 'no revive: the guard never saw it die');
    assert.equal(await dbStatus(fx.base, a.id), 'RUNNING');
    await waitUntil(() => watching(fx.base)?.pid === a.daemon, 5000, 'back in watch mode');
  });
});
