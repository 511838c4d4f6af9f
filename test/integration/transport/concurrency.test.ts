import assert from 'node:assert/strict';
import { ChannelLimiter, SshPool, SshTransport } from '../../../src/core/transport';
import { setup, type Env } from './helpers';

describe('transport/ssh: many commands on one connection', function () {
  this.timeout(60_000);
  let env: Env;

  before(async () => {
    env = await setup(1); // sshd defaults: MaxSessions 10

  });
  after(async () => { await env?.teardown(); });

  it('200 concurrent execs share one connection and all succeed', async () => {
    const t = env.transport(env.hosts[0]);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) =>
      t.exec(['sh', '-c', 'sleep 0.02; printf %s "$1"', 'sh', String(i)])));
    results.forEach((r, i) => {
      assert.equal(r.code, 0, `exec ${i}: signal ${r.signal}, stderr ${r.stderr.toString()}\n${env.hosts[0].log().slice(-2000)}`);
      assert.equal(r.stdout.toString(), String(i));
    });
    assert.equal(env.pool.size, 1);
    // sshd may still refuse a few opens ("no more sessions": it frees a closed session a moment
    // after we see the close); those are retried inside the transport and never reach us.
  });

  it('transports for the same user@host:port share the connection', async () => {
    const a = env.transport(env.hosts[0]);
    const b = env.transport(env.hosts[0]);
    await Promise.all([a.exec(['true']), b.exec(['true'])]);
    assert.equal(a.connectionKey, b.connectionKey);
    assert.equal(env.pool.size, 1);
    // sshd forks one "[priv]" monitor per connection.
    const ps = await env.hosts[0].exec('ps -eo args');
    assert.equal(ps.stdout.split('\n').filter((l) => /\[priv\]/.test(l)).length, 1, ps.stdout);
    await a.close();
    assert.equal((await b.exec(['echo', 'still'])).stdout.toString(), 'still\n');
  });

  it('a server with a lower MaxSessions than our cap: opens are retried, never fail', async () => {
    const low = await setup(1, { firstAddress: 9, sshdConfig: ['MaxSessions 3'] });
    try {
      const t = low.transport(low.hosts[0]);
      const results = await Promise.all(Array.from({ length: 60 }, (_, i) =>
        t.exec(['sh', '-c', 'sleep 0.05; printf %s "$1"', 'sh', String(i)])));
      results.forEach((r, i) => assert.equal(r.stdout.toString(), String(i)));
      assert.match(low.hosts[0].log(), /no more sessions/); // the server did refuse; we coped
    } finally {
      await low.teardown();
    }
  });

  it('long-lived channels hold slots; queued execs wait for them rather than fail', async () => {
    const t = new SshTransport(env.options(env.hosts[0], { maxChannels: 2 }), new SshPool());
    try {
      const chans = await Promise.all([t.openChannel(['cat']), t.openChannel(['cat'])]);
      let done = false;
      const p = t.exec(['echo', 'queued']).then((r) => { done = true; return r; });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(done, false, 'exec ran although both slots were held');
      chans[0].end();
      assert.equal((await p).stdout.toString(), 'queued\n');
      chans[1].end();
    } finally {
      await t.close();
    }
  });
});

describe('transport: ChannelLimiter', () => {
  it('grants in order, never more than the cap, and shrinks on refusal', async () => {
    const l = new ChannelLimiter(2);
    const r1 = await l.acquire();
    const r2 = await l.acquire();
    const order: number[] = [];
    const p3 = l.acquire().then((r) => { order.push(3); return r; });
    const p4 = l.acquire().then((r) => { order.push(4); return r; });
    assert.equal(l.inUse, 2);
    assert.equal(l.queued, 2);
    r1();
    r1(); // idempotent
    const r3 = await p3;
    assert.equal(l.inUse, 2);
    l.shrink(1); // refused while 1 channel was open -> cap 1
    assert.equal(l.limit, 1);
    r2();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, [3]); // still 1 in use = cap
    r3();
    (await p4)();
    assert.deepEqual(order, [3, 4]);
    l.reset();
    assert.equal(l.limit, 2);
  });

  it('an aborted waiter leaves the queue', async () => {
    const l = new ChannelLimiter(1);
    const r1 = await l.acquire();
    const ac = new AbortController();
    const p = l.acquire(ac.signal);
    ac.abort(new Error('gone'));
    await assert.rejects(p, /gone/);
    assert.equal(l.queued, 0);
    r1();
    assert.equal(l.inUse, 0);
  });
});
