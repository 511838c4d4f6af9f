// The thin CLI's fast path (src/cli/thin.ts → the holder's warm worker, src/cli/worker.ts)
// against a real sshd: who runs a run, with which environment, state and build.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { testOps, waitFor } from '../ops/helpers';
import { fastPathHarness, WORKER, type Run } from './fastPathHarness';

describe('transport/holder: the thin CLI hands exec to a warm worker of the holder', function () {
  this.timeout(180_000);
  const f = fastPathHarness();

  it('with no holder the thin CLI runs the full CLI (which starts one); the next run is the worker\'s, with the job\'s exit code', async () => {
    const cold = await f.runCli(['exec', 'b', 'echo cold']);
    assert.equal(cold.code, 0, cold.err);
    assert.equal(cold.out, 'cold\n');
    assert.match(cold.err, /fast path not used: .*(ENOENT|no such file)/i);
    await waitFor('the holder the first run started', f.answers);
    const failing = await waitFor('a run by a warm worker', async () => {
      const r = await f.runCli(['exec', 'b', f.task('fails', 'echo out; echo err >&2; exit 3')]);
      return WORKER.test(r.err) ? r : undefined;
    }, 30_000);
    const direct = await f.runCli(['exec', 'b', f.task('fails', 'echo out; echo err >&2; exit 3')], { SKYDECK_NO_HOLDER: '1' });
    assert.equal(failing.code, 3, failing.err);
    assert.equal(direct.code, 3, direct.err);
    // The job's log is one stream (stdout and stderr as they came), printed on stdout.
    assert.equal(failing.out, 'out\nerr\n');
    assert.equal(direct.out, failing.out);
    assert.match(failing.err, /FAILED \(exit code 3\)/);
  });

  it('two thin CLIs at once both run through workers, each job once', async () => {
    await f.warmHolder();
    // The second starts while the first runs (it waits for a mark the test makes after the
    // second ended), so no worker is free for it.
    const mark = path.join(os.tmpdir(), `skydeck-fast-mark-${process.pid}-${Date.now()}`);
    let second: Promise<Run> | undefined;
    const a = await f.runCli(['exec', 'b', `echo aaa; while [ ! -e ${mark} ]; do sleep 0.1; done; echo zzz`], {}, (out) => {
      if (!second && out.includes('aaa')) second = f.runCli(['exec', 'b', 'echo bbb']).finally(() => fs.writeFileSync(mark, ''));
    });
    fs.rmSync(mark, { force: true });
    assert.ok(second, a.err);
    const b = await second;
    assert.equal(a.out, 'aaa\nzzz\n', a.err);
    assert.equal(b.out, 'bbb\n', b.err);
    const pids = [a, b].map((r) => r.err.match(WORKER)?.[1]);
    assert.ok(pids.every(Boolean), `both by workers: ${a.err}\n${b.err}`);
    assert.notEqual(pids[0], pids[1], 'two runs at once are two workers');
  });

  it('runs with the caller\'s environment and directory, not the holder\'s', async () => {
    await f.warmHolder();
    // Another workspace (an empty one) named by the caller's environment: no cluster b there.
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-fast-other-'));
    const viaWorker = await f.runCli(['exec', 'b', 'echo x'], { SKYDECK_WORKSPACE: other });
    const direct = await f.runCli(['exec', 'b', 'echo x'], { SKYDECK_WORKSPACE: other, SKYDECK_NO_HOLDER: '1' });
    const both = `via the worker: ${JSON.stringify(viaWorker)}\ndirect: ${JSON.stringify(direct)}`;
    assert.match(viaWorker.err, WORKER, both);
    assert.equal(viaWorker.code, direct.code, both);
    assert.notEqual(viaWorker.code, 0, both);
    assert.equal(viaWorker.out, '', both);
    const line = direct.err.split('\n').find((l) => /cluster/i.test(l));
    assert.ok(line && viaWorker.err.includes(line), `the worker says what the CLI says: ${both}`);
    // No SKYDECK_WORKSPACE: the workspace is the caller's directory (here: the test's workspace).
    const inCwd = await f.runCli(['exec', 'b', 'echo here'], { SKYDECK_WORKSPACE: '' }, undefined, f.ops.workspaceRoot);
    assert.equal(inCwd.out, 'here\n', `in the caller's directory: ${JSON.stringify(inCwd)}`);
    assert.match(inCwd.err, WORKER);
    fs.rmSync(other, { recursive: true, force: true });
  });

  it('a state file changed between two runs is read again (a cluster gone from it is gone)', async () => {
    await f.warmHolder();
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-fast-state-'));
    fs.cpSync(path.join(f.ops.workspaceRoot, '.skydeck'), path.join(ws, '.skydeck'), { recursive: true });
    const first = await f.runCli(['exec', 'b', 'echo one'], { SKYDECK_WORKSPACE: ws });
    assert.equal(first.out, 'one\n', first.err);
    assert.match(first.err, WORKER);
    // Another process replaces the state with one that has no clusters.
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-fast-empty-'));
    const st = await testOps({ root: empty });
    await st.dispose();
    fs.copyFileSync(path.join(empty, '.skydeck', 'state.db'), path.join(ws, '.skydeck', 'state.db'));
    const second = await f.runCli(['exec', 'b', 'echo two'], { SKYDECK_WORKSPACE: ws });
    assert.match(second.err, WORKER);
    assert.notEqual(second.code, 0);
    assert.equal(second.out, '');
    // And garbage in its place is reported, never taken for the earlier state.
    fs.writeFileSync(path.join(ws, '.skydeck', 'state.db'), 'not a database');
    const third = await f.runCli(['exec', 'b', 'echo three'], { SKYDECK_WORKSPACE: ws });
    assert.match(third.err, WORKER);
    assert.equal(third.out, '');
    assert.notEqual(third.code, 0);
    for (const d of [ws, empty]) fs.rmSync(d, { recursive: true, force: true });
  });

  it('a rebuilt CLI is not run by a worker of the old build', async () => {
    await f.warmHolder();
    const main = path.join(path.dirname(f.cli), 'cli-main.js');
    const t = new Date(Date.now() + 5000);
    fs.utimesSync(main, t, t);
    const r = await f.runCli(['exec', 'b', 'echo rebuilt']);
    assert.equal(r.out, 'rebuilt\n', r.err);
    assert.match(r.err, /fast path not used: the holder runs another build/);
    assert.doesNotMatch(r.err, WORKER);
  });
});
