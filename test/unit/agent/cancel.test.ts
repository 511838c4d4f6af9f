import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentFixture, isAlive, markedProcs, waitStatus, waitUntil } from './helpers';

describe('agent cancel', function () {
  this.timeout(30000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  it('a job that ignores SIGTERM: cancel answers at once, the job lives through the grace, then is killed', async () => {
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'trap "" TERM; while true; do sleep 1; done' });
    await waitUntil(() => markedProcs(fx.base, job_id).some((p) => p.comm === 'sleep'), 30_000, 'job runs');
    // Order, not a stopwatch: the answer comes while the TERM-ignoring job is still alive,
    // so cancel did not wait out the grace; then the escalation kills it.
    const grace = 5;
    const r = await c.call('cancel', { job_ids: [job_id], grace });
    assert.deepEqual(r.cancelled, [job_id]);
    assert.ok(markedProcs(fx.base, job_id).length > 0, 'killed before the grace ended');
    await waitUntil(() => markedProcs(fx.base, job_id).length === 0, (grace + 30) * 1000, 'trap job dead');
    const row = await waitStatus(c, job_id, 'CANCELLED');
    assert.equal(row.reason, 'cancelled by request');
  });

  it('the SIGKILL escalation happens even if the client disconnects right after cancelling', async () => {
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'trap "" TERM; while true; do sleep 1; done' });
    await waitUntil(() => markedProcs(fx.base, job_id).some((p) => p.comm === 'sleep'), 5000, 'job runs');
    await c.call('cancel', { job_ids: [job_id], grace: 1 });
    c.kill();
    await waitUntil(() => markedProcs(fx.base, job_id).length === 0, 2000, 'trap job dead');
  });

  it('a double-forked daemon child that left the process group is killed too', async () => {
    const c = fx.serve();
    const pidFile = path.join(fx.base, 'escaped.pid');
    // The child starts its own session (setsid) and ignores SIGTERM: only the marker finds it.
    const run =
      `/usr/bin/python3 -c 'import os,sys,time\n` +
      `if os.fork(): sys.exit(0)\n` +
      `os.setsid()\n` +
      `if os.fork(): sys.exit(0)\n` +
      `open(sys.argv[1], "w").write(str(os.getpid()))\n` +
      `os.execvp("sh", ["sh", "-c", "trap \\"\\" TERM; while :; do sleep 1; done"])' '${pidFile}'\n` +
      'sleep 600';
    const { job_id } = await c.call('submit', { run });
    await waitUntil(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').length > 0, 5000, 'daemon child');
    const escaped = Number(fs.readFileSync(pidFile, 'utf8'));
    const row = await waitStatus(c, job_id, 'RUNNING');
    assert.ok(isAlive(escaped));
    // The pid file is written just before exec: /proc/<pid>/environ can be unreadable mid-exec,
    // so wait until the scan sees it rather than trusting one snapshot.
    await waitUntil(() => markedProcs(fx.base, job_id).some((p) => p.pid === escaped), 3000, 'escaped child scanned');
    const procs = markedProcs(fx.base, job_id);
    const groups = new Set(procs.map((p) => p.pgid));
    assert.ok(groups.size >= 2, 'the child really escaped the job group');
    assert.notEqual(procs.find((p) => p.pid === escaped)!.pgid, row.driver_pid);
    await c.call('cancel', { job_ids: [job_id], grace: 0.5 });
    await waitUntil(() => !isAlive(escaped) && markedProcs(fx.base, job_id).length === 0, 2500, 'all gone');
  });

  it('cancel by user and cancel all touch only their jobs; other base dirs are never touched', async () => {
    const c = fx.serve();
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-agent-other-'));
    const fx2 = new AgentFixture();
    fx2.base = other;
    try {
      const c2 = fx2.serve();
      const foreign = (await c2.call('submit', { run: 'sleep 60' })).job_id;
      const a1 = (await c.call('submit', { run: 'sleep 60', user: 'alice' })).job_id;
      const a2 = (await c.call('submit', { run: 'sleep 60', user: 'alice' })).job_id;
      const b1 = (await c.call('submit', { run: 'sleep 60', user: 'bob' })).job_id;
      for (const id of [a1, a2, b1]) await waitStatus(c, id, 'RUNNING');
      await waitStatus(c2, foreign, 'RUNNING');
      assert.equal(foreign, a1, 'both agents number their jobs from 1: ids alone would collide');
      const r = await c.call('cancel', { user: 'alice', grace: 1 });
      assert.deepEqual(r.cancelled, [a1, a2]);
      await waitUntil(() => markedProcs(fx.base, a1).length + markedProcs(fx.base, a2).length === 0, 3000, 'alice gone');
      assert.equal((await waitStatus(c, b1, 'RUNNING')).status, 'RUNNING');
      assert.ok(markedProcs(fx.base, b1).length > 0);
      const all = await c.call('cancel', { all: true, grace: 1 });
      assert.deepEqual(all.cancelled, [b1]);
      await waitUntil(() => markedProcs(fx.base).length === 0, 3000, 'all gone');
      // The other agent's job 1 is untouched.
      assert.equal((await waitStatus(c2, foreign, 'RUNNING')).status, 'RUNNING');
      assert.ok(markedProcs(other, foreign).length > 0);
      // Cancelling again reports the job as already terminal.
      const again = await c.call('cancel', { job_ids: [a1] });
      assert.deepEqual(again.cancelled, []);
      assert.deepEqual(again.already_terminal, [a1]);
    } finally {
      await fx2.cleanup();
    }
  });

  it('cancelling a pending job needs no processes and frees nothing', async () => {
    const c = fx.serve();
    await c.call('configure', { capacity: { cpus: 1 } });
    const a = (await c.call('submit', { run: 'sleep 60', resources: { cpus: 1 } })).job_id;
    const b = (await c.call('submit', { run: 'sleep 60', resources: { cpus: 1 } })).job_id;
    await waitStatus(c, a, 'RUNNING');
    await c.call('cancel', { job_ids: [b] });
    await waitStatus(c, b, 'CANCELLED');
    assert.equal((await waitStatus(c, a, 'RUNNING')).status, 'RUNNING');
  });
});
