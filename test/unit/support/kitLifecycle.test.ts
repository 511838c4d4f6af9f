// The kit's lifecycle (kitLifecycle.ts) with fake up.sh/down.sh that log their calls: under
// mocha one start and one down per run, after every file and also when a test failed; a run
// ended by SIGTERM still runs down.sh; SKYDECK_K8S_KEEP=1 keeps it; without mocha (the bench)
// the last release takes it down; a kit file started early joins that one start.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const FIX = 'test/fixtures/kitLifecycle';
// tsx loaded here, not through --node-option (which makes mocha start a second node process).
const MOCHA = [process.execPath, '--import', 'tsx', 'node_modules/mocha/bin/mocha.js', '--no-config', '--extension', 'ts', '--reporter', 'dot', `${FIX}/first.ts`, `${FIX}/second.ts`];

describe('the Kubernetes kit lifecycle (fake kit scripts)', function () {
  this.timeout(120_000);
  let dir: string;
  let log: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-kitlife-'));
    log = path.join(dir, 'calls.log');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = (cmd: string[], env: Record<string, string>, onStart?: (pid: number) => void) => new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) => {
    const child = spawn(cmd[0], cmd.slice(1), {
      cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CI: '', SKYDECK_K8S_KEEP: '', SKYDECK_K8S_KIT_SCRIPTS: path.join(ROOT, FIX, 'scripts'), SKYDECK_K8S_RUN_DIR: dir, KIT_FAKE_LOG: log, ...env },
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b));
    child.stderr.on('data', (b: Buffer) => (out += b));
    onStart?.(child.pid!);
    child.on('close', (code, signal) => resolve({ code, signal, out }));
  });
  const calls = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []);

  it('under mocha: up once, down once after the last file, also when a test failed', async () => {
    const r = await run(MOCHA, {});
    assert.match(r.out, /1 passing/, r.out);
    assert.match(r.out, /1 failing/, r.out);
    assert.deepEqual(calls(), [`up ${dir}`, 'test first', 'test second', `down ${dir}`], r.out);
  });

  it('SKYDECK_K8S_KEEP=1 (not under CI) leaves it up; under CI it goes down anyway', async () => {
    await run(MOCHA, { SKYDECK_K8S_KEEP: '1' });
    assert.deepEqual(calls(), [`up ${dir}`, 'test first', 'test second']);
    fs.rmSync(log);
    await run(MOCHA, { SKYDECK_K8S_KEEP: '1', CI: 'true' });
    assert.deepEqual(calls(), [`up ${dir}`, 'test first', 'test second', `down ${dir}`]);
  });

  it('a run ended by SIGTERM to its process group (the suite runner\'s limit) still runs down.sh', async () => {
    let pid = 0;
    const done = run(MOCHA, { KIT_FAKE_WAIT: '1' }, (p) => (pid = p));
    while (!calls().includes('test second')) await new Promise((r) => setTimeout(r, 100));
    process.kill(-pid, 'SIGTERM');
    const r = await done;
    assert.notEqual(r.code, 0, r.out);
    // down.sh runs detached, so it may finish just after the run.
    for (let i = 0; i < 100 && !calls().includes(`down ${dir}`); i++) await new Promise((res) => setTimeout(res, 100));
    assert.deepEqual(calls(), [`up ${dir}`, 'test first', 'test second', `down ${dir}`]);
  });

  it('a start still under way when the run ends (its hook timed out) is waited for, then taken down', async () => {
    // The first file alone: no later file waits for the start, so only the root hook can.
    const r = await run(MOCHA.filter((a) => !a.endsWith('second.ts')), { KIT_FAKE_SLOW_UP: '2' });
    assert.match(r.out, /Timeout of 300ms exceeded/, r.out);
    assert.deepEqual(calls(), [`up ${dir}`, `down ${dir}`], r.out);
  });

  it('a kit file started early (as k8sKit.ts does): up.sh runs while earlier files run, once, and goes down at the end', async function () {
    // startKitEarly starts only as root (the real kit needs it; useKit skips or fails otherwise).
    if (process.getuid?.() !== 0) {
      console.error('      !!! SKIPPING "a kit file started early": startKitEarly starts only as root; run the tests as root (CI does)');
      this.skip();
    }
    const files = [`${FIX}/zero.ts`, `${FIX}/early.ts`, `${FIX}/second.ts`];
    const r = await run([...MOCHA.filter((a) => !a.startsWith(FIX)), ...files], {});
    assert.match(r.out, /3 passing/, r.out);
    assert.deepEqual(calls(), [`up ${dir}`, 'test zero (up already called)', 'test early', 'test second', `down ${dir}`], r.out);
    // SKYDECK_K8S_EARLY=0: the first kit file's hook starts it, as before.
    fs.rmSync(log);
    await run([...MOCHA.filter((a) => !a.startsWith(FIX)), ...files], { SKYDECK_K8S_EARLY: '0' });
    assert.deepEqual(calls(), ['test zero (up not called)', `up ${dir}`, 'test early', 'test second', `down ${dir}`]);
  });

  it('with a lead pattern (as k8sKit.ts has): up.sh waits for the first test of a file it matches, not the start of the run', async function () {
    if (process.getuid?.() !== 0) {
      console.error('      !!! SKIPPING "with a lead pattern": startKitEarly starts only as root; run the tests as root (CI does)');
      this.skip();
    }
    const files = [`${FIX}/zero.ts`, `${FIX}/lead.ts`, `${FIX}/early.ts`, `${FIX}/second.ts`];
    const r = await run([...MOCHA.filter((a) => !a.startsWith(FIX)), ...files], { KIT_FAKE_LEAD: '/lead\\.ts$' });
    assert.match(r.out, /4 passing/, r.out);
    assert.deepEqual(calls(), ['test zero (up not called)', `up ${dir}`, 'test lead (up already called)', 'test early', 'test second', `down ${dir}`], r.out);
  });

  it('without mocha (the bench): down at the last release, not before', async () => {
    const r = await run([process.execPath, '--import', 'tsx', `${FIX}/noMocha.ts`], {});
    assert.equal(r.code, 0, r.out);
    assert.deepEqual(calls(), [`up ${dir}`, 'released one', `down ${dir}`]);
  });
});
