// The job driver's resident part: the static waiter (native/skydeck_wait.c) that replaces the
// sh driver by exec while a job's run script runs, and the sh driver it falls back to. Both
// paths must report the same outcomes.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentFixture, agentEnv, MACHINE, markedProcs, requireWaiter, sleep, waitStatus, waitUntil, WAITER } from './helpers';

/** Runs the waiter as the driver would exec it, with a fake reporter that writes what it got. */
function runWaiter(dir: string, script: string, env: Record<string, string> = {}) {
  const report = path.join(dir, 'report');
  const fake = path.join(dir, 'fake-python');
  fs.writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$*" "marker=\${SKYDECK_JOB_MARKER-unset}" > '${report}'\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'run.sh'), script);
  const r = spawnSync(WAITER, [path.join(dir, 'cancelled'), '/bin/bash', path.join(dir, 'run.sh'), fake, 'AGENT', 'BASE', '42'], {
    env: { PATH: process.env.PATH!, SKYDECK_JOB_MARKER: 'm:42', ...env },
    encoding: 'utf8',
    timeout: 10_000,
  });
  const said = fs.existsSync(report) ? fs.readFileSync(report, 'utf8') : null;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, said };
}

describe('job driver: the static waiter', function () {
  this.timeout(30_000);
  let dir = '';
  beforeEach(() => {
    requireWaiter();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-waiter-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('answers its probe, and refuses other arguments with a usage line', () => {
    assert.equal(spawnSync(WAITER, ['--probe'], { encoding: 'utf8' }).stdout, 'skydeck-wait 5\n');
    const bad = spawnSync(WAITER, ['only', 'two'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /usage: skydeck-wait/);
  });

  it('reports the run script exit code, with the marker gone from the reporter only', () => {
    const r = runWaiter(dir, 'echo "out $SKYDECK_JOB_MARKER"; echo err >&2; exit 7\n');
    assert.equal(r.stdout, 'out m:42\nerr\n', 'stderr of the run joins its stdout (the job log)');
    assert.equal(r.said, '-E -S AGENT --base BASE _done 42 7 run\nmarker=unset\n');
  });

  it('a run ended by a signal is reported as 128 + the signal, as sh reports it', () => {
    assert.equal(runWaiter(dir, 'kill -9 $$\n').said?.split('\n')[0], '-E -S AGENT --base BASE _done 42 137 run');
  });

  it('a TERM to the waiter while it waits neither ends it nor reaches the reporter', () => {
    // The run script signals its parent (the waiter) twice, then finishes normally.
    const r = runWaiter(dir, 'kill -TERM $PPID; kill -INT $PPID; sleep 0.2; exit 3\n');
    assert.equal(r.code, 0, 'the reporter ran (the fake exits 0)');
    assert.equal(r.said?.split('\n')[0], '-E -S AGENT --base BASE _done 42 3 run');
  });

  it("the job's commands get default TERM and INT and an empty mask, even though the driver hands them over ignored", () => {
    fs.writeFileSync(path.join(dir, 'run.sh'), 'grep -E "^Sig(Ign|Blk)" /proc/self/status\n');
    const out = spawnSync('/bin/sh', ['-c', `trap '' TERM INT; exec "$0" "$@"`, WAITER, path.join(dir, 'cancelled'), '/bin/bash', path.join(dir, 'run.sh'), '/bin/true', 'A', 'B', '1'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH! },
    }).stdout;
    const mask = (name: string) => BigInt('0x' + (out.match(new RegExp(`${name}:\\s*([0-9a-f]+)`)) ?? [])[1]);
    assert.equal(mask('SigIgn') & ((1n << 14n) | (1n << 1n)), 0n, `TERM/INT not ignored: ${out}`);
    assert.equal(mask('SigBlk'), 0n, `nothing blocked: ${out}`);
  });

  it('a cancelled job (the flag file) exits 143 without starting the reporter', () => {
    fs.writeFileSync(path.join(dir, 'cancelled'), '');
    const r = runWaiter(dir, 'exit 0\n');
    assert.equal(r.code, 143);
    assert.equal(r.said, null);
  });

  it('a shell that cannot run is 127 in the log and in the report', () => {
    const fake = path.join(dir, 'fake-python');
    fs.writeFileSync(fake, `#!/bin/sh\necho "$*" > '${dir}/report'\n`, { mode: 0o755 });
    const r = spawnSync(WAITER, [path.join(dir, 'cancelled'), '/nonexistent/shell', 'x', fake, 'A', 'B', '9'], { encoding: 'utf8' });
    assert.match(r.stdout, /cannot run the job's shell \/nonexistent\/shell/);
    assert.equal(fs.readFileSync(path.join(dir, 'report'), 'utf8'), '-E -S A --base B _done 9 127 run\n');
  });

  describe('--driver: the whole driver of a job without setup', () => {
    /** The driver's variables as job_env sets them, for a job dir under `dir`. */
    const driverEnv = (over: Record<string, string> = {}) => {
      const fake = path.join(dir, 'fake-python');
      fs.writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$*" > '${dir}/report'\n`, { mode: 0o755 });
      const job = path.join(dir, 'job');
      fs.mkdirSync(job, { recursive: true });
      fs.mkdirSync(path.join(dir, 'wd'), { recursive: true });
      return {
        PATH: process.env.PATH!, KEEP: 'kept', SKYDECK_JOB_MARKER: 'm:5',
        _SKYDECK_PY: fake, _SKYDECK_AGENT: 'AG', _SKYDECK_BASE: 'B', _SKYDECK_JOB: '5', _SKYDECK_DIR: job,
        _SKYDECK_SHELL: '/bin/bash', _SKYDECK_CWD: path.join(dir, 'wd'), _SKYDECK_CGROUP: '', _SKYDECK_UMASK: '0027',
        _SKYDECK_SETUP_UNSET: '', _SKYDECK_WAIT: WAITER, ...over,
      };
    };
    const drive = (env: Record<string, string>) => spawnSync(WAITER, ['--driver', 'skydeck-job-5'], { env, encoding: 'utf8', timeout: 10_000 });
    const said = () => fs.readFileSync(path.join(dir, 'report'), 'utf8');

    it('enters the workdir with the umask, hides its own variables from the job, and reports', () => {
      const env = driverEnv();
      fs.writeFileSync(path.join(env._SKYDECK_DIR, 'run.sh'), 'pwd; umask; env | grep -c "^_SKYDECK_"; echo "$KEEP $SKYDECK_JOB_MARKER"; exit 3\n');
      const r = drive(env);
      assert.equal(r.stdout, `${env._SKYDECK_CWD}\n0027\n0\nkept m:5\n`);
      assert.equal(said(), '-E -S AG --base B _done 5 3 run\n');
    });

    it('creates no driver.err while run runs (a job start makes no file for it); the reporter\'s stderr goes there', () => {
      const env = driverEnv();
      const err = path.join(env._SKYDECK_DIR, 'driver.err');
      fs.writeFileSync(env._SKYDECK_PY, `#!/bin/sh\nprintf '%s\\n' "$*" > '${dir}/report'\necho reporter-notice >&2\n`, { mode: 0o755 });
      fs.writeFileSync(path.join(env._SKYDECK_DIR, 'run.sh'), `[ -e '${err}' ] && echo err-exists; echo ran\n`);
      const r = drive(env);
      assert.equal(r.stdout, 'ran\n');
      assert.equal(r.stderr, '', 'nothing of the driver on the job log');
      assert.equal(said(), '-E -S AG --base B _done 5 0 run\n');
      assert.equal(fs.readFileSync(err, 'utf8'), 'reporter-notice\n');
    });

    it('a workdir it cannot enter: said in the log, reported as the workdir phase', () => {
      const env = driverEnv({ _SKYDECK_CWD: path.join(dir, 'gone') });
      fs.writeFileSync(path.join(env._SKYDECK_DIR, 'run.sh'), 'echo must-not-run\n');
      const r = drive(env);
      assert.equal(r.stdout, `skydeck: cannot enter the workdir ${env._SKYDECK_CWD}\n`);
      assert.equal(said(), '-E -S AG --base B _done 5 1 workdir\n');
    });

    it('a cgroup it cannot join: said in driver.err, reported as the cgroup phase, run never starts', () => {
      const env = driverEnv({ _SKYDECK_CGROUP: path.join(dir, 'not-a-cgroup') });
      fs.writeFileSync(path.join(env._SKYDECK_DIR, 'run.sh'), 'echo must-not-run\n');
      const r = drive(env);
      assert.equal(r.stdout, '');
      assert.match(fs.readFileSync(path.join(env._SKYDECK_DIR, 'driver.err'), 'utf8'), /cannot join the job's cgroup .*not-a-cgroup/);
      assert.equal(said(), '-E -S AG --base B _done 5 1 cgroup\n');
    });

    it('no run script is a success; a cancelled flag exits 143 unreported; a missing variable exits 2', () => {
      const env = driverEnv();
      drive(env);
      assert.equal(said(), '-E -S AG --base B _done 5 0 run\n');
      fs.rmSync(path.join(dir, 'report'));
      fs.writeFileSync(path.join(env._SKYDECK_DIR, 'cancelled'), '');
      assert.equal(drive(env).status, 143);
      assert.equal(fs.existsSync(path.join(dir, 'report')), false);
      const { _SKYDECK_CWD: _, ...noCwd } = env;
      const bad = drive(noCwd as Record<string, string>);
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /missing _SKYDECK_CWD/);
    });
  });
});

for (const mode of ['waiter', 'sh'] as const) {
  describe(`job driver through the agent (${mode})`, function () {
    this.timeout(40_000);
    const fx = new AgentFixture();
    const env = () => agentEnv(mode === 'sh' ? { SKYDECK_DRIVER_WAITER: '0' } : {});
    beforeEach(() => {
      if (mode === 'waiter') requireWaiter();
      fx.setup();
    });
    afterEach(() => fx.cleanup());

    const leaderOf = async (jobId: number) =>
      waitUntil(() => markedProcs(fx.base, jobId).find((p) => p.pid === p.sid) ?? null, 5000, 'driver');

    it('the resident driver of a running job is the waiter (or the sh driver when turned off)', async () => {
      const c = fx.serve(env());
      const { job_id } = await c.call('submit', { run: 'sleep 30' });
      await waitStatus(c, job_id, 'RUNNING');
      await waitUntil(() => markedProcs(fx.base, job_id).some((p) => p.comm === 'sleep'), 5000, 'sleep runs');
      const exe = fs.realpathSync(`/proc/${(await leaderOf(job_id)).pid}/exe`);
      if (mode === 'waiter') assert.equal(exe, fs.realpathSync(WAITER));
      else assert.equal(exe, fs.realpathSync('/bin/sh'));
      await c.call('cancel', { job_ids: [job_id], grace: 1 });
      await waitStatus(c, job_id, 'CANCELLED');
      await waitUntil(() => markedProcs(fx.base, job_id).length === 0, 5000, 'all gone after cancel');
    });

    it('exit codes, signals and the log are recorded as before', async () => {
      const c = fx.serve(env());
      const a = await c.call('submit', { run: 'echo out; echo err >&2; exit 7' });
      const b = await c.call('submit', { run: 'kill -9 $$' });
      const ok = await c.call('submit', { setup: 'echo set', run: 'echo ran' });
      assert.equal((await waitStatus(c, a.job_id, 'FAILED')).exit_code, 7);
      assert.equal((await c.logs({ job_id: a.job_id })).data.toString(), 'out\nerr\n');
      assert.equal((await waitStatus(c, b.job_id, 'FAILED')).exit_code, 137);
      await waitStatus(c, ok.job_id, 'SUCCEEDED');
      assert.equal((await c.logs({ job_id: ok.job_id })).data.toString(), 'set\nran\n');
      const env2 = await c.call('submit', { run: 'env | grep -c "^_SKYDECK_" || true' });
      await waitStatus(c, env2.job_id, 'SUCCEEDED');
      assert.equal((await c.logs({ job_id: env2.job_id })).data.toString(), '0\n', 'no internal variable reaches the job');
    });

    it('a TERM to the driver alone (not a cancel) leaves the job running to its own end', async () => {
      const c = fx.serve(env());
      const gate = path.join(fx.base, 'gate');
      const { job_id } = await c.call('submit', { run: `while [ ! -e '${gate}' ]; do sleep 0.05; done; exit 4` });
      await waitStatus(c, job_id, 'RUNNING');
      await sleep(200);
      const driver = await leaderOf(job_id);
      process.kill(driver.pid, 'SIGTERM');
      process.kill(driver.pid, 'SIGINT');
      await sleep(200);
      fs.writeFileSync(gate, '');
      assert.equal((await waitStatus(c, job_id, 'FAILED')).exit_code, 4);
    });

    it('a driver killed with -9 while run runs is FAILED_DRIVER, and its job is cleaned up', async () => {
      const c = fx.serve(env());
      const { job_id } = await c.call('submit', { run: 'sleep 30' });
      await waitUntil(() => markedProcs(fx.base, job_id).some((p) => p.comm === 'sleep'), 5000, 'sleep runs');
      process.kill((await leaderOf(job_id)).pid, 'SIGKILL');
      const row = await waitStatus(c, job_id, 'FAILED_DRIVER', 20_000);
      assert.ok(row.reason, 'a reason is given');
      await waitUntil(() => markedProcs(fx.base, job_id).length === 0, 10_000, 'leftovers killed');
    });
  });
}

describe('job driver: a waiter that does not answer its probe is not used', function () {
  this.timeout(30_000);
  const fx = new AgentFixture();
  let copy = '';
  beforeEach(() => fx.setup());
  afterEach(async () => {
    await fx.cleanup();
    if (copy) fs.rmSync(copy, { recursive: true, force: true });
  });

  it('a planted binary in a copied agent answers wrong: the sh driver runs the job', async () => {
    // A copy of the agent whose waiter is a script that prints something else.
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-agentcopy-'));
    fs.cpSync(path.resolve(__dirname, '../../../agent'), copy, { recursive: true, filter: (p) => !p.includes('__pycache__') });
    fs.mkdirSync(path.join(copy, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(copy, 'bin', `skydeck-wait-${MACHINE}`), '#!/bin/sh\necho not-me\n', { mode: 0o755 });
    const proc = spawn('/usr/bin/python3', [path.join(copy, 'skydeck_agent.py'), '--base', fx.base, 'submit'], {
      env: agentEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    proc.stdin.end(JSON.stringify({ run: 'sleep 30' }));
    const out: Buffer[] = [];
    proc.stdout.on('data', (b) => out.push(b));
    await new Promise((r) => proc.on('exit', r));
    const jobId = JSON.parse(Buffer.concat(out).toString()).result.job_id as number;
    const leader = await waitUntil(() => markedProcs(fx.base, jobId).find((p) => p.pid === p.sid) ?? null, 5000, 'driver');
    assert.equal(fs.realpathSync(`/proc/${leader.pid}/exe`), fs.realpathSync('/bin/sh'));
  });
});
