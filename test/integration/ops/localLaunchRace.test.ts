// Hostile use of a local cluster's directory through the bundled CLI, as users run it: two
// launches racing on one fresh name, and a launch killed (SIGKILL) once its row is written.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleWorker } from '../../support/bundleWorker';
import { StateStore, getCluster } from '../../../src/core/state';
import { writeIntent } from '../../../src/core/ops/provisionReachable';
import { testOps } from './helpers';

const ROOT = path.resolve(__dirname, '../../..');

function startCli(cli: string, ws: string, args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; out: string; err: string }> } {
  const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, SKYDECK_WORKSPACE: ws }, cwd: ws });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  return { child, done };
}

const runCli = (cli: string, ws: string, args: string[]) => startCli(cli, ws, args).done;

async function rowOf(ws: string, name: string) {
  const store = await StateStore.openWorkspace(ws);
  try {
    return await store.read((db) => getCluster(db, name));
  } finally {
    store.close();
  }
}

describe('local cluster directory under hostile use (bundled CLI)', function () {
  this.timeout(180_000);
  let cli: string;
  const cleanups: Array<[string, string]> = [];
  before(async () => {
    cli = await bundleWorker(path.join(ROOT, 'src/cli/main.ts'));
    fs.cpSync(path.join(ROOT, 'agent'), path.join(path.dirname(cli), 'agent'), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(path.dirname(cli), 'sql-wasm.wasm'));
  });
  after(async () => {
    for (const [ws, name] of cleanups) await runCli(cli, ws, ['down', name, '-y', '--grace', '0']);
  });

  function workspace(): string {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-race-'));
    fs.writeFileSync(path.join(ws, 't.yaml'), 'resources:\n  cloud: local\nrun: echo "ran-$SKYPILOT_TASK_ID"\n');
    return ws;
  }

  it('two launches racing on one fresh name both run their job on the one cluster; neither clears the other', async () => {
    const ws = workspace();
    cleanups.push([ws, 'same']);
    const [a, b] = await Promise.all([runCli(cli, ws, ['launch', 't.yaml', '-c', 'same']), runCli(cli, ws, ['launch', 't.yaml', '-c', 'same'])]);
    assert.equal(a.code, 0, a.err);
    assert.equal(b.code, 0, b.err);
    assert.match(a.out, /ran-/);
    assert.match(b.out, /ran-/);
    // Exactly one created (and so cleared) the directory: the other found the row.
    const cleared = [a, b].filter((r) => /Removed files no cluster row owned/.test(r.err + r.out));
    assert.equal(cleared.length, 0, 'a fresh directory has nothing to clear');
    const q = await runCli(cli, ws, ['queue', 'same']);
    assert.equal(q.code, 0, q.err);
    assert.equal((q.out.match(/SUCCEEDED/g) ?? []).length, 2, q.out);
  });
  it('two launches racing on a name whose directory holds planted files: exactly one clears them, both run, the planted agent never does', async () => {
    const ws = workspace();
    cleanups.push([ws, 'planted']);
    const base = path.join(ws, '.skydeck', 'local', 'planted');
    const marker = path.join(ws, 'PWNED');
    fs.mkdirSync(path.join(base, 'agent'), { recursive: true });
    fs.writeFileSync(path.join(base, 'jobs.db'), 'planted queue');
    fs.writeFileSync(path.join(base, 'agent', 'skydeck_agent.py'), `open(${JSON.stringify(marker)}, "w").write("ran")\n`);
    const [a, b] = await Promise.all([runCli(cli, ws, ['launch', 't.yaml', '-c', 'planted']), runCli(cli, ws, ['launch', 't.yaml', '-c', 'planted'])]);
    assert.equal(a.code, 0, a.err);
    assert.equal(b.code, 0, b.err);
    assert.equal([a, b].filter((r) => /Removed files no cluster row owned/.test(r.err + r.out)).length, 1);
    assert.match(a.out, /ran-/);
    assert.match(b.out, /ran-/);
    assert.ok(!fs.existsSync(marker), 'the planted agent never ran');
  });

  it('a launch killed right after its row is committed leaves no unowned files: the relaunch keeps the directory safely', async () => {
    const ws = workspace();
    cleanups.push([ws, 'killed']);
    const base = path.join(ws, '.skydeck', 'local', 'killed');
    fs.mkdirSync(base, { recursive: true });
    fs.writeFileSync(path.join(base, 'jobs.db'), 'planted queue');
    // What a SIGKILL between the row's commit and anything after it leaves: the row, and the
    // directory as the commit left it (writeIntent is the launch's commit of the row).
    const ctx = await testOps({ root: ws });
    try {
      const intent = await writeIntent(ctx, 'killed', 'local', 1, undefined, { minutes: null, down: false });
      assert.equal(intent.created, true);
      assert.equal(intent.cleared, true);
    } finally {
      await ctx.dispose();
    }
    assert.ok(!fs.existsSync(path.join(base, 'jobs.db')), 'the planted queue is gone once the row is committed');
    const r = await runCli(cli, ws, ['launch', 't.yaml', '-c', 'killed']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /ran-/);
    assert.doesNotMatch(r.err + r.out, /Removed files/, 'the relaunch found the row and cleared nothing');
    assert.equal((await rowOf(ws, 'killed'))?.status, 'UP');
  });

  it('a real launch killed (SIGKILL) once its row exists: the relaunch runs on the same cluster', async () => {
    const ws = workspace();
    cleanups.push([ws, 'sigkill']);
    const first = startCli(cli, ws, ['launch', 't.yaml', '-c', 'sigkill']);
    const end = Date.now() + 60_000;
    while (!(await rowOf(ws, 'sigkill').catch(() => undefined))) {
      if (Date.now() > end) throw new Error('the first launch never wrote its row');
      await new Promise((r) => setTimeout(r, 10));
    }
    first.child.kill('SIGKILL');
    await first.done;
    const r = await runCli(cli, ws, ['launch', 't.yaml', '-c', 'sigkill']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /ran-/);
    assert.equal((await rowOf(ws, 'sigkill'))?.status, 'UP');
  });
});
