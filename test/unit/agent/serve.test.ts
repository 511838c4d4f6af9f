import assert from 'node:assert/strict';
import { AgentFixture, assertPythonTests, isAlive, waitStatus, withTimeout } from './helpers';

describe('agent serve (JSON lines)', function () {
  this.timeout(30000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  it('test_request_lines.py (its reader of request lines): every test passes and none is skipped', () => {
    assertPythonTests('test_request_lines.py', 4, 'the request reader tests');
  });

  it('greets with version and protocol, answers version', async () => {
    const c = fx.serve();
    const hello = await c.hello;
    assert.equal(hello.event, 'hello');
    assert.equal(hello.id, null);
    assert.equal(hello.protocol, 2);
    assert.equal(typeof hello.version, 'string');
    const v = await c.call('version');
    assert.equal(v.version, hello.version);
    assert.equal(v.schema_version, 5);
  });

  it('answers interleaved requests by id and multiplexes follow streams', async () => {
    const c = fx.serve();
    await c.hello;
    // Two jobs writing distinguishable lines over a while, followed at the same time, with
    // other requests (and a bad one) sent before any answer arrives.
    const run = (tag: string) => `for i in 1 2 3 4 5 6 7 8; do echo "${tag}-$i"; sleep 0.05; done`;
    const subA = c.request('submit', { name: 'a', run: run('A') }, 'sub-a');
    const subB = c.request('submit', { name: 'b', run: run('B') }, 42);
    const q = c.request('queue', {}, { nested: 'id' });
    const bad = c.request('nope', {}, 'bad-cmd');
    c.sendRaw('{not json\n');
    const st = c.request('status', {}, 'st');
    const [a, b] = await Promise.all([subA, subB]);
    assert.equal(a.id, 'sub-a');
    assert.equal(b.id, 42);
    assert.ok(a.ok && b.ok);
    const fa = c.logs({ job_id: a.result.job_id, follow: true }, 'follow-a');
    const fb = c.logs({ job_id: b.result.job_id, follow: true }, 'follow-b');
    const mid = await c.request('queue', { job_ids: [a.result.job_id] }, 'mid');
    assert.equal(mid.id, 'mid');
    const [la, lb] = await Promise.all([fa, fb]);
    assert.deepEqual((await q).id, { nested: 'id' });
    assert.equal((await q).ok, true);
    const badAns = await bad;
    assert.equal(badAns.ok, false);
    assert.equal(badAns.error!.code, 'unknown_command');
    assert.equal((await st).ok, true);
    assert.equal(la.data.toString(), [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `A-${i}\n`).join(''));
    assert.equal(lb.data.toString(), [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `B-${i}\n`).join(''));
    assert.equal(la.final.result.status, 'SUCCEEDED');
    assert.equal(la.final.result.offset, la.data.length);
    assert.equal(lb.final.result.status, 'SUCCEEDED');
    // Chunk offsets are contiguous.
    let off = 0;
    for (const ch of la.chunks) {
      assert.equal(ch.offset, off);
      off += ch.length;
    }
    // The malformed line got an error with id null, and the session went on.
    const badJson = c.unclaimed.find((m) => m.id === null && m.ok === false);
    assert.equal(badJson?.error.code, 'bad_json');
    assert.equal(await c.close(), 0);
  });

  it('exits cleanly when stdin closes, even with a follow open; the job keeps running', async () => {
    const c = fx.serve();
    await c.hello;
    const { job_id } = await c.call('submit', { run: 'sleep 30' });
    void c.logs({ job_id, follow: true });
    // close() gives up (null) after its bound: exit code 0 means it ended by itself.
    assert.equal(await c.close(15_000), 0);
    const c2 = fx.serve();
    const row = await waitStatus(c2, job_id, 'RUNNING');
    assert.ok(isAlive(row.driver_pid), 'the job outlives the connection');
  });

  it('unfollow ends a stream with stopped=true', async () => {
    const c = fx.serve();
    await c.hello;
    const { job_id } = await c.call('submit', { run: 'echo started; sleep 30' });
    const f = c.logs({ job_id, follow: true }, 'f1');
    await waitStatus(c, job_id, 'RUNNING');
    await new Promise((r) => setTimeout(r, 300));
    const u = await c.call('unfollow', { request: 'f1' });
    assert.equal(u.stopped, true);
    const res = await withTimeout(f, 3000, 'stream end');
    assert.equal(res.final.result.stopped, true);
    assert.equal(res.final.result.status, 'RUNNING');
    assert.equal(res.data.toString(), 'started\n');
    assert.equal((await c.call('unfollow', { request: 'f1' })).stopped, false);
  });

  it('a logs request for an unknown job fails at once with not_found', async () => {
    const c = fx.serve();
    await c.hello;
    await c.call('submit', { run: 'true' });
    const r = await c.request('logs', { job_id: 999, follow: true });
    assert.equal(r.ok, false);
    assert.equal(r.error!.code, 'not_found');
  });
});
