// The thin CLI's fast path when something goes wrong mid-run: a holder or worker killed -9,
// Ctrl-C, a run that needs the caller's terminal. Never a job run twice.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fastPathHarness, WORKER, type Run } from './fastPathHarness';
import { status } from '../../../src/core/ops';

describe('transport/holder: the thin CLI\'s fast path under kill -9, Ctrl-C and prompts', function () {
  this.timeout(180_000);
  const f = fastPathHarness();

  it('kill -9 of the holder mid-run: the worker finishes the run (its job once), later runs start over', async () => {
    await f.warmHolder();
    const pid = f.holderPid();
    let killed = false;
    const r = await f.runCli(['exec', 'b', 'echo started; sleep 2; echo finished'], {}, (out) => {
      if (!killed && out.includes('started')) { killed = true; process.kill(pid, 'SIGKILL'); }
    });
    assert.ok(killed, r.err);
    assert.match(r.err, WORKER);
    if (r.code === 0) assert.equal(r.out, 'started\nfinished\n');
    else assert.match(r.err, /holder|connection/i);
    assert.equal((r.out.match(/started/g) ?? []).length, 1);
    const after = await f.runCli(['exec', 'b', 'echo again']);
    assert.equal(after.out, 'again\n', after.err);
  });

  it('kill -9 of the worker mid-run: the CLI says so and exits 1; it never runs the job again', async () => {
    await f.warmHolder();
    const before = await f.jobCount();
    let killed = false;
    const r = await f.runCli(['exec', 'b', 'echo started; sleep 2; echo finished'], {}, (out, _c, err) => {
      const pid = err.match(WORKER)?.[1];
      if (!killed && pid && out.includes('started')) { killed = true; process.kill(Number(pid), 'SIGKILL'); }
    });
    assert.ok(killed, r.err);
    assert.equal(r.code, 1);
    assert.match(r.err, /worker went away during the run; the job may or may not have been submitted/);
    assert.equal(r.out, 'started\n');
    assert.equal(await f.jobCount(), before + 1, 'one job, not run again by a fallback');
  });

  it('Ctrl-C during a fast-path run detaches as the full CLI does: the job keeps running', async () => {
    await f.warmHolder();
    const before = await f.jobCount();
    let sent = false;
    const r = await f.runCli(['exec', 'b', 'echo started; sleep 2; echo finished'], {}, (out, c) => {
      if (!sent && out.includes('started')) { sent = true; c.kill('SIGINT'); }
    });
    assert.match(r.err, WORKER);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /Detached; the job keeps running/);
    assert.equal(r.out, 'started\n');
    const rows = await f.ops.connections.client((await status(f.ops))[0].cluster).queueSnapshot();
    assert.equal(rows.length, before + 1);
    const job = rows.sort((x, y) => x.job_id - y.job_id).pop()!;
    assert.ok(['RUNNING', 'SUCCEEDED'].includes(job.status), job.status);
  });

  it('a run that must ask on the caller\'s terminal (an unknown host key) stops unsubmitted; the full CLI asks', async () => {
    await f.warmHolder();
    const before = await f.jobCount();
    const empty = path.join(f.ops.workspaceRoot, 'known_hosts.empty');
    fs.writeFileSync(empty, '');
    // `script` gives the CLI a terminal; "no" is typed ahead and read by whoever asks.
    const line = [process.execPath, f.cli, 'exec', 'b', 'echo tty'].map((w) => `'${w}'`).join(' ');
    const r = await new Promise<Run>((resolve) => {
      const c = spawn('script', ['-qec', line, '/dev/null'], { env: { ...f.env, SKYDECK_KNOWN_HOSTS: empty } });
      let out = '';
      c.stdout.on('data', (d) => (out += d));
      c.stdin.write('no\n');
      c.on('close', (code) => resolve({ code, out, err: '' }));
    });
    assert.match(r.out, /fast path not used: the run needs this terminal/);
    assert.match(r.out, /Trust it and continue \(yes\/no\)\?/);
    assert.equal((r.out.match(/Trust it and continue/g) ?? []).length, 1, 'asked once, by the full CLI');
    assert.doesNotMatch(r.out, /^tty\r?$/m);
    assert.notEqual(r.code, 0);
    assert.equal(await f.jobCount(), before, 'nothing submitted');
  });
});
