import assert from 'node:assert/strict';
import { ConnectionLostError, ConnectionRefusedError, SshPool, SshTransport } from '../../../src/core/transport';
import type { TestHost } from '../../hosts';
import { expectReject, setup, type Env } from './helpers';

describe('transport/ssh: dropped connections and reboots', function () {
  this.timeout(60_000);
  let env: Env;
  let host: TestHost;
  let t: SshTransport;
  const log: string[] = [];
  const connects = (): number => log.filter((l) => l.endsWith(': connected')).length;

  before(async () => {
    env = await setup(1);
    host = env.hosts[0];
    t = env.transport(host, {
      log: (m) => log.push(m),
      reconnect: { retries: 4, baseDelayMs: 50, maxDelayMs: 400 },
    });
  });
  after(async () => { await env?.teardown(); });

  it('after the server kills the connection, the next exec reconnects transparently', async () => {
    assert.equal((await t.exec(['echo', 'one'])).stdout.toString(), 'one\n');
    const before = connects();
    assert.ok((await host.killConnections()) >= 1);
    assert.equal((await t.exec(['echo', 'two'])).stdout.toString(), 'two\n');
    assert.equal(connects(), before + 1);
    assert.equal(env.pool.size, 1);
  });

  it('an open channel reports close when the connection dies', async () => {
    const ch = await t.openChannel(['cat']);
    const closed = new Promise<number | null>((r) => ch.onClose(r));
    ch.write('x\n');
    await new Promise<void>((r) => ch.onData(() => r()));
    await host.killConnections();
    // Liveness, bounded by the test timeout: close is reported at all (no hang).
    assert.equal(await closed, null);
    ch.write('ignored after close'); // must not throw
  });

  it('a command running when the connection dies rejects with ConnectionLostError', async () => {
    const p = t.exec(['sleep', '30']);
    p.catch(() => undefined); // it rejects while we are still killing
    // Kill only once the command really runs there (a fixed sleep raced a loaded machine).
    for (let i = 0; !/^sleep 30$/m.test((await host.exec('ps -eo args')).stdout); i++) {
      if (i > 200) throw new Error('the remote sleep never started');
      await new Promise((r) => setTimeout(r, 50));
    }
    await host.killConnections();
    const e = await expectReject(p, ConnectionLostError);
    assert.match(e.message, new RegExp(`${host.address}:${host.port}`));
    assert.equal((await t.exec(['echo', 'after'])).stdout.toString(), 'after\n');
  });

  it('a reboot (namespace killed, sshd restarted) kills remote processes; the next exec works', async () => {
    await t.exec(['sh', '-c', 'nohup sleep 300 >/dev/null 2>&1 &']);
    assert.match((await host.exec('ps -eo args')).stdout, /sleep 300/);
    await host.restart();
    assert.doesNotMatch((await host.exec('ps -eo args')).stdout, /sleep 300/);
    assert.equal((await t.exec(['echo', 'rebooted'])).stdout.toString(), 'rebooted\n');
  });

  it('a machine that stays down: refused after the retries; works again once it is back', async () => {
    await t.exec(['true']);
    await host.stop();
    const started = Date.now();
    const e = await expectReject(t.exec(['true']), ConnectionRefusedError);
    assert.match(e.message, /refused/);
    assert.ok(Date.now() - started >= 700, 'reconnect did not back off');
    await host.start();
    assert.equal((await t.exec(['echo', 'back'])).stdout.toString(), 'back\n');
  });

  it('a silent peer (sshd frozen) is detected by keepalive; the next exec reconnects', async () => {
    // A pool of its own: in the shared pool it would get the existing connection's settings.
    const k = new SshTransport(env.options(host, { keepaliveIntervalMs: 200, keepaliveCountMax: 2, connectTimeoutMs: 3000 }), new SshPool());
    await k.exec(['true']);
    const ch = await k.openChannel(['cat']);
    const closed = new Promise<number | null>((r) => ch.onClose(r));
    const thaw = await host.freezeConnections();
    try {
      // Only keepalive can notice a frozen peer within the test's timeout (TCP would take
      // minutes), so a close at all is the assertion.
      assert.equal(await closed, null);
    } finally {
      thaw();
    }
    assert.equal((await k.exec(['echo', 'alive'])).stdout.toString(), 'alive\n');
    await k.close();
  });
});
