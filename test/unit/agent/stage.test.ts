// Queued jobs' files are written while they wait (stage.py), so a release creates none; what is
// staged is only ever used when it is exactly the job's own, and goes when the job never runs.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentFixture, agentEnv, assertPythonTests, isAlive, procStat, PY, sleep, waitStatus, waitUntil } from './helpers';
import { spawnSync } from 'node:child_process';

const LIB = path.resolve(__dirname, '../../../agent');

describe('agent: queued jobs staged ahead of their release', function () {
  this.timeout(30000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  const jobDir = (id: number) => path.join(fx.base, 'jobs', String(id));
  const logFile = (id: number) => path.join(fx.base, 'logs', String(id), 'run.log');

  it('serve stages a queued job after answering its submit; the release runs that script', async () => {
    const c = fx.serve(agentEnv({ SKYDECK_TICK_INTERVAL: '30' })); // the daemon stays out of it
    await c.call('configure', { capacity: { cpus: 1 } });
    const blocker = (await c.call('submit', { run: 'sleep 600', resources: { cpus: 1 } })).job_id;
    const queued = await c.call('submit', { run: 'echo "staged $SKYDECK_JOB_ID"', setup: 'true', resources: { cpus: 1 } });
    assert.equal(queued.status, 'PENDING');
    const id = queued.job_id;
    await waitUntil(() => fs.existsSync(logFile(id)), 5000, 'the queued job staged');
    assert.equal(fs.readFileSync(path.join(jobDir(id), 'run.sh'), 'utf8'), 'echo "staged $SKYDECK_JOB_ID"');
    assert.equal(fs.readFileSync(path.join(jobDir(id), 'setup.sh'), 'utf8'), 'true');
    assert.equal(fs.statSync(logFile(id)).size, 0, 'staged, not started');
    assert.deepEqual(fs.readdirSync(jobDir(id)).sort(), ['run.sh', 'setup.sh'], 'no temporary file left');
    await c.call('cancel', { job_ids: [blocker], grace: 0 });
    await waitStatus(c, id, 'SUCCEEDED');
    assert.equal(fs.readFileSync(logFile(id), 'utf8'), `staged ${id}\n`);
  });

  /** serve with its two stagers and the daemon stopped (as when a burst has the CPUs: each of
   * them stages too), and a blocker filling 4 CPUs. */
  async function stoppedStaging(): Promise<{ c: ReturnType<typeof fx.serve>; blocker: number; stopped: number[] }> {
    const c = fx.serve(agentEnv({ SKYDECK_TICK_INTERVAL: '30' }));
    const hello = await c.hello;
    await c.call('configure', { capacity: { cpus: 4 } });
    const blocker = (await c.call('submit', { run: 'sleep 600', resources: { cpus: 4 } })).job_id as number;
    // The stagers are serve's forks: its own command line.
    const cmdline = (p: number) => { try { return fs.readFileSync(`/proc/${p}/cmdline`, 'latin1'); } catch { return ''; } };
    const stagers = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number)
      .filter((p) => procStat(p)?.ppid === hello.pid && cmdline(p) === cmdline(hello.pid));
    assert.equal(stagers.length, 2, 'two stagers');
    const daemonPid = () => { try { return Number(fs.readFileSync(path.join(fx.base, 'daemon.pid'), 'utf8').split(' ')[0]); } catch { return 0; } };
    await waitUntil(() => daemonPid() > 0 && isAlive(daemonPid()), 5000, 'the daemon up');
    const stopped = [...stagers, daemonPid()];
    for (const p of stopped) process.kill(p, 'SIGSTOP');
    return { c, blocker, stopped };
  }

  it('serve stages a job its submit queued in line before it reads the next request (a release right behind finds them)', async () => {
    const { c, blocker, stopped } = await stoppedStaging();
    try {
      const ids: number[] = [];
      for (let i = 1; i <= 5; i++) {
        ids.push((await c.call('submit', { run: `echo burst ${i}`, resources: { cpus: 1 } })).job_id);
        await sleep(50); // the client's pause: no request waits when serve looks
      }
      await c.call('version', {});
      assert.deepEqual(ids.map((id) => fs.existsSync(logFile(id))), [true, true, true, true, false], 'the four in line, at once');
      assert.equal(fs.readFileSync(path.join(jobDir(ids[3]), 'run.sh'), 'utf8'), 'echo burst 4');
      // The line moves (the four in it cancelled): the next job submitted is in it again.
      await c.call('cancel', { job_ids: ids.slice(0, 4) });
      const next = (await c.call('submit', { run: 'echo burst 6', resources: { cpus: 1 } })).job_id;
      await sleep(50);
      await c.call('version', {});
      assert.ok(fs.existsSync(logFile(next)), 'the job after the one past the line, now in it');
      await c.call('cancel', { job_ids: [blocker], grace: 0 });
      await waitStatus(c, next, 'SUCCEEDED');
      assert.equal(fs.readFileSync(logFile(next), 'utf8'), 'burst 6\n');
    } finally {
      for (const p of stopped) process.kill(p, 'SIGCONT');
    }
  });

  it('a pipelined burst of submits is left to the stagers: serve answers the next request first', async () => {
    const { c, blocker, stopped } = await stoppedStaging();
    let resumed = false;
    try {
      // Five submits in one write: serve has the next one in hand after each answer.
      const lines = [1, 2, 3, 4, 5].map((i) => JSON.stringify({ id: `b${i}`, cmd: 'submit', args: { run: `echo piped ${i}`, resources: { cpus: 1 } } }));
      c.proc.stdin!.write(lines.join('\n') + '\n');
      await waitUntil(() => c.unclaimed.length === 5, 5000, 'five answers');
      const ids = c.unclaimed.map((a) => a.result.job_id as number);
      await c.call('version', {});
      assert.deepEqual(ids.map((id) => fs.existsSync(jobDir(id))), [false, false, false, false, false], 'none staged by serve');
      for (const p of stopped) process.kill(p, 'SIGCONT');
      resumed = true;
      await waitUntil(() => ids.slice(0, 4).every((id) => fs.existsSync(logFile(id))), 5000, 'the stagers (kicked while stopped) stage the four in line');
      await c.call('cancel', { job_ids: [blocker], grace: 0 });
      await waitStatus(c, ids[3], 'SUCCEEDED');
      assert.equal(fs.readFileSync(logFile(ids[3]), 'utf8'), 'piped 4\n');
    } finally {
      if (!resumed) for (const p of stopped) process.kill(p, 'SIGCONT');
    }
  });

  it('submits followed by the end of input: serve stages the jobs in line before it leaves', async () => {
    const { c, blocker, stopped } = await stoppedStaging();
    try {
      const lines = [1, 2, 3].map((i) => JSON.stringify({ id: `e${i}`, cmd: 'submit', args: { run: `echo last ${i}`, resources: { cpus: 1 } } }));
      c.proc.stdin!.end(lines.join('\n') + '\n');
      assert.equal(await c.exited, 0); // after ~2 s: its stopped stagers do not leave
      const ids = c.unclaimed.map((a) => a.result.job_id as number);
      assert.deepEqual(ids, [blocker + 1, blocker + 2, blocker + 3]);
      assert.deepEqual(ids.map((id) => fs.readFileSync(path.join(jobDir(id), 'run.sh'), 'utf8')), ['echo last 1', 'echo last 2', 'echo last 3']);
      assert.ok(ids.every((id) => fs.existsSync(logFile(id))));
    } finally {
      for (const p of stopped) process.kill(p, 'SIGCONT');
    }
    await fx.cli(['cancel', '--grace', '0', '--all'], undefined, agentEnv({ SKYDECK_TICK_INTERVAL: '30' }));
  });

  it('a FIFO where a queued job\'s log goes: serve, staging it, answers the next request at once', async () => {
    const c = fx.serve(agentEnv({ SKYDECK_TICK_INTERVAL: '30' }));
    await c.call('configure', { capacity: { cpus: 1 } });
    const blocker = (await c.call('submit', { run: 'sleep 600', resources: { cpus: 1 } })).job_id;
    fs.mkdirSync(path.dirname(logFile(blocker + 1)), { recursive: true });
    assert.equal(spawnSync('mkfifo', [logFile(blocker + 1)]).status, 0);
    assert.equal((await c.call('submit', { run: 'echo hi', resources: { cpus: 1 } })).job_id, blocker + 1);
    const answer = await Promise.race([c.call('version', {}), sleep(3000).then(() => 'no answer')]);
    assert.notEqual(answer, 'no answer');
    await c.call('cancel', { job_ids: [blocker, blocker + 1], grace: 0 });
  });

  it('test_stage.py (races with a cancel timed by hand; the line summed in SQLite): every test passes and none is skipped', () => {
    assertPythonTests('test_stage.py', 4, 'the staging tests');
  });

  it('a script left under a job\'s name that is not its own (a replaced jobs.db) is never run', async () => {
    const c = fx.serve(agentEnv({ SKYDECK_TICK_INTERVAL: '30' }));
    await c.call('configure', { capacity: { cpus: 1 } });
    const blocker = (await c.call('submit', { run: 'sleep 600', resources: { cpus: 1 } })).job_id;
    const next = blocker + 1;
    // As if staged by an earlier database: a whole stage (log present, so no stager rewrites it),
    // one script longer and one a prefix of the real one (a write cut short).
    fs.mkdirSync(jobDir(next), { recursive: true });
    fs.mkdirSync(path.dirname(logFile(next)), { recursive: true });
    fs.writeFileSync(path.join(jobDir(next), 'run.sh'), 'echo mine-and-more; echo STALE');
    fs.writeFileSync(path.join(jobDir(next), 'setup.sh'), 'ech');
    fs.writeFileSync(logFile(next), '');
    const id = (await c.call('submit', { run: 'echo mine-and-more', setup: 'echo', resources: { cpus: 1 } })).job_id;
    assert.equal(id, next);
    // The next one has no setup, but an old setup.sh lies in its dir.
    fs.mkdirSync(jobDir(next + 1), { recursive: true });
    fs.writeFileSync(path.join(jobDir(next + 1), 'setup.sh'), 'echo STALE-SETUP');
    const id2 = (await c.call('submit', { run: 'echo second', resources: { cpus: 1 } })).job_id;
    assert.equal(id2, next + 1);
    await c.call('cancel', { job_ids: [blocker], grace: 0 });
    await waitStatus(c, id, 'SUCCEEDED');
    assert.equal(fs.readFileSync(logFile(id), 'utf8'), '\nmine-and-more\n');
    await waitStatus(c, id2, 'SUCCEEDED');
    assert.equal(fs.readFileSync(logFile(id2), 'utf8'), 'second\n');
    assert.ok(!fs.existsSync(path.join(jobDir(id2), 'setup.sh')));
  });

  it('only the jobs a release could start are staged: those that fit in all the CPUs, in order', async () => {
    const c = fx.serve(agentEnv({ SKYDECK_TICK_INTERVAL: '30' }));
    await c.call('configure', { capacity: { cpus: 3 } });
    const blocker = (await c.call('submit', { run: 'sleep 600', resources: { cpus: 3 } })).job_id;
    const ids: number[] = [];
    for (const cpus of [1, 2, 1, 1]) ids.push((await c.call('submit', { run: 'true', resources: { cpus } })).job_id);
    await waitUntil(() => fs.existsSync(logFile(ids[1])), 5000, 'the first two staged');
    await sleep(300); // a stager that went on would have written the third by now
    assert.deepEqual(ids.map((id) => fs.existsSync(jobDir(id))), [true, true, false, false]);
    // Cancelling the second moves the queue: the next that fit (1 + 1 of 3 CPUs) are staged.
    await c.call('cancel', { job_ids: [ids[1]] });
    await waitUntil(() => fs.existsSync(logFile(ids[3])), 5000, 'the queue moved up');
    await c.call('cancel', { job_ids: [blocker], grace: 0 });
  });

  it('a pending job cancelled loses its staged files; a running one keeps its own', async () => {
    const c = fx.serve(agentEnv({ SKYDECK_TICK_INTERVAL: '30' }));
    await c.call('configure', { capacity: { cpus: 1 } });
    const running = (await c.call('submit', { run: 'sleep 600', resources: { cpus: 1 } })).job_id;
    const pending = (await c.call('submit', { run: 'echo never', resources: { cpus: 1 } })).job_id;
    await waitUntil(() => fs.existsSync(logFile(pending)), 5000, 'the queued job staged');
    await c.call('cancel', { job_ids: [pending] });
    assert.ok(!fs.existsSync(jobDir(pending)) && !fs.existsSync(path.dirname(logFile(pending))), 'stage removed');
    assert.ok(fs.existsSync(path.join(jobDir(running), 'run.sh')), 'the running job keeps its files');
    await c.call('cancel', { job_ids: [running], grace: 0 });
  });

  it('the daemon stages what a CLI submit queued (no serve to do it)', async () => {
    const env = agentEnv({ SKYDECK_TICK_INTERVAL: '0.2' });
    await fx.cli(['configure'], { capacity: { cpus: 1 } }, env);
    const blocker = (await fx.cli(['submit'], { run: 'sleep 600', resources: { cpus: 1 } }, env)).job_id;
    const id = (await fx.cli(['submit'], { run: 'echo from-cli', resources: { cpus: 1 } }, env)).job_id;
    await waitUntil(() => fs.existsSync(logFile(id)), 5000, 'staged by the daemon');
    assert.equal(fs.readFileSync(path.join(jobDir(id), 'run.sh'), 'utf8'), 'echo from-cli');
    await fx.cli(['cancel', '--grace', '0', String(blocker), String(id)], undefined, env);
  });

  for (const how of ['stdin closes', 'kill -9'] as const) {
    it(`serve's two stager processes hold none of its stdio and leave with it (${how})`, async () => {
      const c = fx.serve(agentEnv({ SKYDECK_TICK_INTERVAL: '30' }));
      const hello = await c.hello;
      const kids = () => fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number)
        .filter((p) => procStat(p)?.ppid === hello.pid);
      await waitUntil(() => kids().length === 2, 5000, 'two stagers');
      const stagers = kids();
      const serveOut = fs.readlinkSync(`/proc/${hello.pid}/fd/1`);
      for (const p of stagers) {
        for (const fd of [0, 1, 2]) assert.notEqual(fs.readlinkSync(`/proc/${p}/fd/${fd}`), serveOut, `stager ${p} fd ${fd}`);
      }
      if (how === 'kill -9') c.proc.kill('SIGKILL');
      else c.proc.stdin!.end();
      await c.exited;
      await waitUntil(() => stagers.every((p) => !isAlive(p)), 5000, 'the stagers gone');
    });
  }

  it('a stager and launchers racing on one job: the script a launcher checked is whole, and a whole one never turns partial', () => {
    // stage_one and write (the launcher's) at once, round after round. The stager writes its
    // new file in place, so a reader may see it growing; but once write() returned the name
    // holds the whole script (the driver runs it after that), and a whole script is never
    // truncated or rewritten in place.
    const script = `
import os, shutil, sys, threading
sys.path.insert(0, ${JSON.stringify(LIB)})
from skydeck_agent_lib import stage
from skydeck_agent_lib.paths import Paths
paths = Paths(sys.argv[1])
os.makedirs(paths.jobs, exist_ok=True); os.makedirs(paths.logs, exist_ok=True)
text = 'echo ' + 'x' * 300000
spec = {'run': text}
bad, staged, twice = [], [], 0
def stager():
    staged.append(stage.stage_one(paths, 7, spec))
def read():
    try:
        with open(os.path.join(paths.job_dir(7), 'run.sh')) as f:
            return f.read()
    except OSError:
        return None
def launcher():
    stage.write(paths, 7, spec)
    if read() != text:
        bad.append('launcher')
def reader():
    whole = False
    for _ in range(200):
        got = read()
        if got == text:
            whole = True
        elif whole:
            bad.append('turned partial: %r' % (got and len(got)))
for _ in range(20):
    shutil.rmtree(paths.job_dir(7), ignore_errors=True)
    del staged[:]
    ts = [threading.Thread(target=f) for f in (stager, stager, launcher, launcher, reader)]
    for t in ts: t.start()
    for t in ts: t.join()
    twice += staged.count(True) > 1
    if open(os.path.join(paths.job_dir(7), 'run.sh')).read() != text: bad.append(-1)
leftover = [n for n in os.listdir(paths.job_dir(7)) if n != 'run.sh']
print('bad=%d staged_twice=%d leftover=%r' % (len(bad), twice, leftover))
`;
    const r = spawnSync(PY, ['-c', script, fx.base], { encoding: 'utf8', timeout: 60000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'bad=0 staged_twice=0 leftover=[]');
  });
});
