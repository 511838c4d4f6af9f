// kill -9 of `skydeck jobs launch` while it copies the job's workdir to the controller: nothing
// is submitted (no job row, nothing runs), the half-sent copy stays only until the controller's
// sweep finds it an hour old, and the next submit of the same task runs once, from its own copy.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleWorker } from '../../support/bundleWorker';
import { cleanupBase } from '../../unit/agent/helpers';
import { ManagedStore, listJobs } from '../../../src/core/managed';
import { uploadsRoot } from '../../../src/core/managed/carryFiles';
import { ORPHAN_UPLOAD_MS } from '../../../src/core/managed/carrySweep';
import { isAlive } from '../../../src/core/state/atomicWrite';

const ROOT = path.resolve(__dirname, '../../..');

describe('managed jobs: kill -9 of jobs launch mid-copy of the workdir', function () {
  this.timeout(180_000);
  let cli: string;
  let home: string;
  let ws: string;
  const pids: number[] = [];
  const env = () => ({ ...process.env, SKYDECK_CONTROLLER_HOME: home, SKYDECK_CONTROLLER_IDLE_S: '1', SKYDECK_CONTROLLER_POLL_MS: '200' });
  const launch = (onStart?: (pid: number) => void) => new Promise<{ code: number | null; signal: string | null; err: string }>((resolve) => {
    const c = spawn(process.execPath, [cli, 'jobs', 'launch', 't.yaml', '-d', '-y'], { env: env(), cwd: ws });
    let err = '';
    c.stderr.on('data', (d) => (err += d));
    onStart?.(c.pid!);
    c.on('close', (code, signal) => resolve({ code, signal, err }));
  });
  const jobs = async () => {
    const file = ManagedStore.fileIn(home);
    if (!fs.existsSync(file)) return [];
    const s = await ManagedStore.open(file);
    try { return (await s.read((db) => listJobs(db))).jobs; } finally { s.close(); }
  };
  const copies = () => (fs.existsSync(uploadsRoot(home)) ? fs.readdirSync(uploadsRoot(home)).filter((n) => /^[0-9a-f]{32}$/.test(n)) : []);
  const until = async (what: string, pred: () => Promise<boolean> | boolean, ms = 90_000) => {
    for (const end = Date.now() + ms; !(await pred()); await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    }
  };

  before(async () => {
    cli = await bundleWorker(path.join(ROOT, 'src/cli/main.ts'));
    fs.cpSync(path.join(ROOT, 'agent'), path.join(path.dirname(cli), 'agent'), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(path.dirname(cli), 'sql-wasm.wasm'));
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carrykill-ws-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carrykill-home-'));
    // A workdir that takes a while to copy: 2000 files of 8 KB.
    const work = path.join(ws, 'work');
    const chunk = Buffer.alloc(8 * 1024, 'x');
    for (let d = 0; d < 20; d++) {
      fs.mkdirSync(path.join(work, `d${d}`), { recursive: true });
      for (let f = 0; f < 100; f++) fs.writeFileSync(path.join(work, `d${d}`, `f${f}`), chunk);
    }
    fs.writeFileSync(path.join(work, 'marker.txt'), 'from the first copy\n');
    fs.writeFileSync(path.join(ws, 't.yaml'), 'name: carried\nworkdir: ./work\nresources: {cloud: local}\nrun: cat marker.txt; ls d0 | wc -l\n');
  });
  after(async () => {
    // The controller spawned by a launch runs in its own group; end it if it lingers.
    for (const p of pids) if (isAlive(p)) process.kill(-p, 'SIGKILL');
    if (home) await cleanupBase(home);
    if (ws) fs.rmSync(ws, { recursive: true, force: true });
  });

  it('nothing is submitted, the partial copy is swept once an hour old, the next submit runs once', async () => {
    let killedAt = -1;
    const killed = await launch((pid) => {
      const poll = setInterval(() => {
        // Killed once its copy has begun: a token directory with some of the workdir in it.
        const c = copies();
        const dir = c.length ? path.join(uploadsRoot(home), c[0]) : '';
        if (dir && fs.existsSync(dir) && fs.readdirSync(dir, { recursive: true }).length > 20) {
          clearInterval(poll);
          killedAt = Date.now();
          try { process.kill(pid, 'SIGKILL'); } catch { /* ended */ }
        }
      }, 5);
      setTimeout(() => clearInterval(poll), 60_000).unref();
    });
    assert.equal(killed.signal, 'SIGKILL', `the launch ended before its copy could be killed (exit ${killed.code}; make the workdir larger):\n${killed.err}`);
    assert.ok(killedAt > 0);
    assert.deepEqual(await jobs(), [], 'a killed submit records no job');
    const orphan = copies();
    assert.equal(orphan.length, 1, 'the half-sent copy is there');

    // The next submit: its own copy, its job runs once to SUCCEEDED; the orphan is younger than an hour, kept.
    const ok = await launch();
    assert.equal(ok.code, 0, ok.err);
    const pid = /started it: pid (\d+)/.exec(ok.err);
    if (pid) pids.push(Number(pid[1]));
    await until('the job to succeed and its cluster to go', async () => { const j = (await jobs())[0]; return j?.status === 'SUCCEEDED' && j.clusterName === null; });
    const all = await jobs();
    assert.equal(all.length, 1, 'one job, not two');
    assert.notEqual(all[0].uploads, orphan[0], 'the job names its own copy, not the killed one\'s');
    await until('the ended job\'s copy removed', () => !copies().includes(all[0].uploads ?? ''));
    assert.deepEqual(copies(), orphan, 'the orphan is kept while younger than an hour');
    if (pid) await until('the idle controller to exit', () => !isAlive(Number(pid[1])));

    // An hour later, a controller that starts sweeps it; the live job's copy is untouched.
    const old = (Date.now() - ORPHAN_UPLOAD_MS - 60_000) / 1000;
    fs.utimesSync(path.join(uploadsRoot(home), orphan[0]), old, old);
    const again = await launch();
    assert.equal(again.code, 0, again.err);
    const pid2 = /started it: pid (\d+)/.exec(again.err);
    if (pid2) pids.push(Number(pid2[1]));
    await until('the orphan swept', () => !copies().includes(orphan[0]));
    await until('the second job to succeed', async () => (await jobs()).filter((j) => j.status === 'SUCCEEDED' && j.clusterName === null).length === 2);
    const log = fs.readFileSync(path.join(home, 'controller.log'), 'utf8');
    assert.ok(log.includes(orphan[0]), `the controller log names the swept copy:\n${log}`);
  });
});
