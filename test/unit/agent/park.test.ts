// Parked drivers (agent/skydeck_agent_lib/park.py, native/skydeck_park.c): the next queued jobs'
// drivers are started ahead and wait on a FIFO; a release is a byte. Real processes throughout:
// the waiter on its own first, then through serve.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentFixture, agentEnv, isAlive, jobRow, requireWaiter, sleep, waitStatus, waitUntil, WAITER } from './helpers';

/** A byte to a FIFO whose reader is there (as park.release writes it). */
function writeTo(fifo: string, data: string): void {
  const fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  if (data) fs.writeSync(fd, data);
  fs.closeSync(fd);
}

describe('parked driver: the waiter waiting on its FIFO', function () {
  this.timeout(30_000);
  let dir = '';
  beforeEach(() => {
    requireWaiter();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-park-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A parked --driver of job 5 under `dir`; resolves with its exit code and output. */
  function parked(fifo: string, script = 'echo ran\n', token = 'tok3n') {
    const job = path.join(dir, 'job');
    fs.mkdirSync(job, { recursive: true });
    fs.writeFileSync(path.join(job, 'run.sh'), script);
    const fake = path.join(dir, 'fake-python');
    fs.writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$*" > '${dir}/report'\n`, { mode: 0o755 });
    const env = {
      PATH: process.env.PATH!, SKYDECK_JOB_MARKER: 'm:5', _SKYDECK_PY: fake, _SKYDECK_AGENT: 'AG', _SKYDECK_BASE: 'B',
      _SKYDECK_JOB: '5', _SKYDECK_DIR: job, _SKYDECK_SHELL: '/bin/bash', _SKYDECK_CWD: dir, _SKYDECK_CGROUP: '',
      _SKYDECK_UMASK: '', _SKYDECK_SETUP_UNSET: '', _SKYDECK_WAIT: WAITER, _SKYDECK_PARK: fifo, _SKYDECK_PARK_TOKEN: token,
    };
    const p = spawn(WAITER, ['--driver', 'skydeck-job-5'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout!.on('data', (b) => (out += b));
    p.stderr!.on('data', (b) => (out += b));
    const done = new Promise<{ code: number | null; out: string; ms: number }>((r) => {
      const t0 = Date.now();
      p.on('exit', (code) => r({ code, out, ms: Date.now() - t0 }));
    });
    return { pid: p.pid!, done };
  }
  const reported = () => (fs.existsSync(path.join(dir, 'report')) ? fs.readFileSync(path.join(dir, 'report'), 'utf8') : null);
  /** A FIFO and its info file, as the parker makes them (the driver adds its pid to the info). */
  const mkfifo = (p: string) => {
    assert.equal(spawnSync('mkfifo', ['-m', '600', p]).status, 0);
    fs.writeFileSync(`${p}.info`, '1 digest tok3n');
  };
  const infoPid = (p: string) => Number(fs.readFileSync(`${p}.info`, 'utf8').split(' ')[3]);
  /** Whether the waiter holds the FIFO open, from its fds (looking must not dismiss it). */
  const holds = (pid: number, fifo: string) => () => {
    try {
      return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === fifo;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  };

  it("waits without touching the job until the agent's 'g', then drives it as usual", async () => {
    const fifo = path.join(dir, 'fifo');
    mkfifo(fifo);
    const w = parked(fifo);
    await waitUntil(holds(w.pid, fifo), 5000, 'the waiter on its FIFO');
    assert.equal(infoPid(fifo), w.pid, 'it said who it is before it opened the FIFO');
    assert.equal(fs.readlinkSync(`/proc/${w.pid}/cwd`), '/', 'it holds nobody\'s directory while parked');
    await sleep(300);
    assert.ok(isAlive(w.pid), 'still parked');
    assert.equal(reported(), null, 'nothing of the job ran');
    writeTo(fifo, 'g');
    fs.rmSync(fifo); // as the agent does right after the byte
    const r = await w.done;
    assert.equal(r.out, 'ran\n');
    assert.equal(r.code, 0);
    assert.equal(reported(), '-E -S AG --base B _done 5 0 run\n');
  });

  it('dismissed (the writer closes without a byte, or writes another): leaves at once, runs and reports nothing', async () => {
    for (const byte of ['', 'x']) {
      const fifo = path.join(dir, `fifo${byte}`);
      mkfifo(fifo);
      const w = parked(fifo);
      await waitUntil(holds(w.pid, fifo), 5000, 'the waiter on its FIFO');
      writeTo(fifo, byte);
      const r = await w.done;
      assert.equal(r.code, 0);
      assert.equal(r.out, '');
      assert.ok(r.ms < 3000, `left after ${r.ms} ms`);
      assert.equal(reported(), null);
    }
  });

  it('a driver of another parking of the job (another token) leaves without joining this one', async () => {
    const fifo = path.join(dir, 'fifo');
    mkfifo(fifo);
    const stale = parked(fifo, 'echo ran\n', 'old-token');
    const r = await stale.done;
    assert.equal(r.code, 0);
    assert.equal(fs.readFileSync(`${fifo}.info`, 'utf8'), '1 digest tok3n', 'it added nothing to the info');
    const w = parked(fifo);
    await waitUntil(holds(w.pid, fifo), 5000, 'the right waiter on its FIFO');
    assert.equal(infoPid(fifo), w.pid);
    writeTo(fifo, 'g');
    assert.equal((await w.done).out, 'ran\n');
  });

  it('a TERM while parked ends it, as any process (nothing of the job ran); once released it is blocked again', async () => {
    const fifo = path.join(dir, 'fifo');
    mkfifo(fifo);
    const w = parked(fifo);
    await waitUntil(holds(w.pid, fifo), 5000, 'the waiter on its FIFO');
    process.kill(w.pid, 'SIGTERM');
    const r = await w.done;
    assert.equal(r.code, null, 'ended by the signal');
    assert.equal(reported(), null);
    const fifo2 = path.join(dir, 'fifo2');
    mkfifo(fifo2);
    const w2 = parked(fifo2, 'sleep 0.5; echo ran\n');
    await waitUntil(holds(w2.pid, fifo2), 5000, 'the second waiter on its FIFO');
    writeTo(fifo2, 'g');
    await waitUntil(() => !holds(w2.pid, fifo2)(), 5000, 'released');
    process.kill(w2.pid, 'SIGTERM'); // a driver's TERM is blocked: it outlives its job and reports
    const r2 = await w2.done;
    assert.equal(r2.out, 'ran\n');
    assert.equal(reported(), '-E -S AG --base B _done 5 0 run\n');
  });

  it('its FIFO removed or replaced: leaves within its check interval (5 s); no FIFO at the start: leaves at once', async () => {
    const fifo = path.join(dir, 'fifo');
    mkfifo(fifo);
    const w = parked(fifo);
    await waitUntil(holds(w.pid, fifo), 5000, 'the waiter on its FIFO');
    fs.rmSync(fifo);
    mkfifo(fifo); // another FIFO under its name is not its own
    const r = await w.done;
    assert.equal(r.code, 0);
    assert.equal(r.out, '');
    assert.ok(r.ms < 8000, `left after ${r.ms} ms`);
    const none = parked(path.join(dir, 'missing'));
    assert.equal((await none.done).code, 0);
    fs.writeFileSync(path.join(dir, 'noinfo'), ''); // its info gone (dismissed): leaves too
    const noInfo = parked(path.join(dir, 'noinfo'));
    assert.equal((await noInfo.done).code, 0);
    assert.equal(reported(), null);
  });
});

describe('parked driver: through the agent', function () {
  this.timeout(60_000);
  const fx = new AgentFixture();
  beforeEach(() => {
    requireWaiter();
    fx.setup();
  });
  afterEach(() => fx.cleanup());

  const parkedDir = () => path.join(fx.base, 'parked');
  const info = (id: number) => {
    try {
      return Number(fs.readFileSync(path.join(parkedDir(), `${id}.info`), 'utf8').split(/\s+/)[3] ?? 0) || 0;
    } catch {
      return 0;
    }
  };
  const logOf = (id: number) => fs.readFileSync(path.join(fx.base, 'logs', String(id), 'run.log'), 'utf8');
  /** serve, a blocker holding the node's one CPU, and one queued job, parked. */
  async function queued(run: string, extra: Record<string, unknown> = {}, env: Record<string, string> = {}) {
    const c = fx.serve(agentEnv({ SKYDECK_TICK_INTERVAL: '30', ...env })); // the daemon stays out of it
    await c.call('configure', { capacity: { cpus: 1 } });
    const blocker = (await c.call('submit', { run: 'sleep 600', resources: { cpus: 1 } })).job_id;
    const id = (await c.call('submit', { run, resources: { cpus: 1 }, ...extra })).job_id;
    const pid = await waitUntil(() => info(id) || null, 5000, 'the queued job parked');
    return { c, blocker, id, pid };
  }

  it('the release runs the job in the parked process itself, which was its driver all along', async () => {
    const { c, blocker, id, pid } = await queued('echo "parked $SKYDECK_JOB_ID $((6 * 7))"');
    assert.match(fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1'), new RegExp(`--driver\0skydeck-job-${id}\0`));
    assert.equal((await jobRow(c, id)).status, 'PENDING');
    assert.equal(logOf(id), '', 'nothing of it ran while queued');
    await c.call('cancel', { job_ids: [blocker], grace: 0 });
    await waitStatus(c, id, 'SUCCEEDED');
    assert.equal(logOf(id), `parked ${id} 42\n`);
    assert.equal((await jobRow(c, id)).driver_pid, pid);
    assert.deepEqual(fs.readdirSync(parkedDir()), [], 'released: its FIFO and info are gone');
  });

  it('a queued job cancelled: its parked driver leaves at once and nothing of it runs', async () => {
    const { c, blocker, id, pid } = await queued('echo MUST-NOT-RUN');
    await c.call('cancel', { job_ids: [id] });
    await waitUntil(() => !isAlive(pid), 2000, 'the parked driver gone');
    assert.equal((await jobRow(c, id)).status, 'CANCELLED');
    assert.deepEqual(fs.readdirSync(parkedDir()), []);
    await c.call('cancel', { job_ids: [blocker], grace: 0 });
    await sleep(300);
    assert.equal(fs.existsSync(path.join(fx.base, 'logs', String(id), 'run.log')) ? logOf(id) : '', '');
  });

  it("a start that changed since parking (another client's environment) is not the parked one's: the job gets the new one", async () => {
    const { c, blocker, id, pid } = await queued('echo "FOO=$FOO"', {}, { FOO: 'old' });
    await c.close();
    const c2 = fx.serve(agentEnv({ SKYDECK_TICK_INTERVAL: '30', FOO: 'new' }));
    await c2.call('cancel', { job_ids: [blocker], grace: 0 });
    await waitStatus(c2, id, 'SUCCEEDED');
    assert.equal(logOf(id), 'FOO=new\n');
    assert.notEqual((await jobRow(c2, id)).driver_pid, pid);
    await waitUntil(() => !isAlive(pid), 2000, 'the stale parked driver dismissed');
  });

  it('a parked driver killed (-9) meanwhile: the release starts the job the usual way', async () => {
    const { c, blocker, id, pid } = await queued('echo fine');
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => !isAlive(pid), 2000, 'killed');
    await c.call('cancel', { job_ids: [blocker], grace: 0 });
    await waitStatus(c, id, 'SUCCEEDED');
    assert.equal(logOf(id), 'fine\n');
    assert.notEqual((await jobRow(c, id)).driver_pid, pid);
  });

  it('a job failing at its claim (its workdir removed while queued) dismisses its parked driver', async () => {
    const wd = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-park-wd-'));
    try {
      const { c, blocker, id, pid } = await queued('echo MUST-NOT-RUN', { workdir: wd });
      fs.rmSync(wd, { recursive: true });
      await c.call('cancel', { job_ids: [blocker], grace: 0 });
      await waitStatus(c, id, 'FAILED_SETUP');
      await waitUntil(() => !isAlive(pid), 2000, 'the parked driver dismissed');
      assert.deepEqual(fs.readdirSync(parkedDir()), []);
    } finally {
      fs.rmSync(wd, { recursive: true, force: true });
    }
  });

  it('parks at most 64, in line order; jobs with setup or secrets are never parked', async () => {
    const c = fx.serve(agentEnv({ SKYDECK_TICK_INTERVAL: '30' }));
    await c.call('configure', { capacity: { cpus: 100 } });
    const blocker = (await c.call('submit', { run: 'sleep 600', resources: { cpus: 100 } })).job_id;
    const odd = [
      (await c.call('submit', { run: 'true', setup: 'true', resources: { cpus: 1 } })).job_id,
      (await c.call('submit', { run: 'true', secrets: { TOKEN: 's3cr3t' }, resources: { cpus: 1 } })).job_id,
    ];
    const ids: number[] = [];
    for (let i = 0; i < 70; i++) ids.push((await c.call('submit', { run: 'true', resources: { cpus: 1 } })).job_id);
    await waitUntil(() => ids.slice(0, 64).every((id) => info(id)), 15000, '64 parked');
    await sleep(500); // a parker that went on would have parked more by now
    assert.deepEqual(ids.slice(64).filter((id) => info(id)), [], 'never more than 64');
    assert.deepEqual(odd.filter((id) => info(id)), []);
    await c.call('cancel', { job_ids: [blocker], grace: 0 });
    for (const id of ids) await waitStatus(c, id, 'SUCCEEDED');
    for (const id of odd) await waitStatus(c, id, 'SUCCEEDED');
  });
});
