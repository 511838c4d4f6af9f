import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import {
  AuthError, ConnectTimeoutError, ConnectionLostError, ConnectionRefusedError, LocalTransport, SshPool, SshTransport,
  TransportConfigError, isTransient, type SshTransportOptions,
} from '../../../src/core/transport';
import { classifyConnectError } from '../../../src/core/transport/errors';
import { freePort } from '../../hosts/system';
import { expectReject, readableEd25519, setup, type Env } from './helpers';

describe('transport: clear errors', function () {
  this.timeout(60_000);
  let env: Env;
  const servers: net.Server[] = [];
  const sockets: net.Socket[] = [];

  before(async () => { env = await setup(1); });
  after(async () => {
    for (const s of sockets) s.destroy();
    for (const s of servers) s.close();
    await env?.teardown();
  });

  function fresh(extra: Partial<SshTransportOptions>): SshTransport {
    return new SshTransport(env.options(env.hosts[0], extra), new SshPool());
  }

  /** A loopback TCP server; `onConn` decides what a client gets. */
  async function server(onConn: (s: net.Socket) => void): Promise<number> {
    const srv = net.createServer((s) => { sockets.push(s); onConn(s); });
    servers.push(srv);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    return (srv.address() as net.AddressInfo).port;
  }

  it('wrong key: AuthError naming user, host and the key tried', async () => {
    const wrong = path.join(env.tmp, 'wrong_key');
    fs.writeFileSync(wrong, readableEd25519(), { mode: 0o600 });
    const t = fresh({ keyFile: wrong });
    const e = await expectReject(t.exec(['true']), AuthError);
    const h = env.hosts[0];
    assert.equal(e.kind, 'auth');
    assert.ok(e.message.includes(`${h.user}@${h.address}:${h.port}`), e.message);
    assert.ok(e.message.includes(wrong), e.message);
    assert.match(e.message, /authorized_keys/);
    assert.ok(!e.message.includes('PRIVATE KEY'), 'key material in the message');
    assert.equal(isTransient(e), false);
    await t.close();
  });

  it('no key anywhere: AuthError that says so', async () => {
    const t = fresh({ keyFile: undefined });
    const e = await expectReject(t.exec(['true']), AuthError);
    assert.match(e.message, /no key was available/);
    await t.close();
  });

  it('default keys from sshDir are used when no key file is given; encrypted ones are skipped', async () => {
    const sshDir = path.join(env.tmp, 'fake-home-ssh');
    fs.mkdirSync(sshDir);
    const enc = readableEd25519({ passphrase: 'pw', cipher: 'aes256-cbc', rounds: 1 });
    fs.writeFileSync(path.join(sshDir, 'id_ed25519'), enc, { mode: 0o600 });
    fs.copyFileSync(env.clientKeyPath, path.join(sshDir, 'id_ecdsa')); // name only; ssh2 parses the content
    const t = fresh({ keyFile: undefined, sshDir });
    assert.equal((await t.exec(['echo', 'ok'])).stdout.toString(), 'ok\n');
    await t.close();
  });

  it('a missing key file is a settings error naming the file', async () => {
    const t = fresh({ keyFile: path.join(env.tmp, 'nope') });
    const e = await expectReject(t.exec(['true']), TransportConfigError);
    assert.ok(e.message.includes(path.join(env.tmp, 'nope')));
    await t.close();
  });

  it('nothing listening: ConnectionRefusedError naming host:port', async () => {
    const port = await freePort('127.0.0.2');
    const log: string[] = [];
    const t = fresh({ port, log: (m) => log.push(m) });
    const e = await expectReject(t.exec(['true']), ConnectionRefusedError);
    assert.ok(e.message.includes(`127.0.0.2:${port}`), e.message);
    assert.match(e.message, /sshd/);
    // Fails fast: a first connection is never retried (retries are for re-connects only).
    assert.deepEqual(log.filter((l) => /retrying/.test(l)), []);
    await t.close();
  });

  it('a peer that never speaks SSH: ConnectTimeoutError after connectTimeoutMs', async () => {
    const port = await server(() => undefined);
    const t = new SshTransport({ ...env.options(env.hosts[0]), host: '127.0.0.1', port, connectTimeoutMs: 300 }, new SshPool());
    // The test's own timeout bounds it: without connectTimeoutMs this would hang forever.
    const e = await expectReject(t.exec(['true']), ConnectTimeoutError);
    assert.ok(e.message.includes(`127.0.0.1:${port}`), e.message);
    await t.close();
  });

  it('a peer that hangs up at once: ConnectionLostError', async () => {
    const port = await server((s) => s.destroy());
    const t = new SshTransport({ ...env.options(env.hosts[0]), host: '127.0.0.1', port }, new SshPool());
    const e = await expectReject(t.exec(['true']), ConnectionLostError);
    assert.ok(e.message.includes(`127.0.0.1:${port}`), e.message);
    await t.close();
  });

  it('unreachable and DNS errors are classified (no traffic leaves loopback)', () => {
    const e1 = classifyConnectError('h:22', Object.assign(new Error('x'), { code: 'EHOSTUNREACH' }), 1000);
    assert.equal(e1.kind, 'unreachable');
    assert.match(e1.message, /h:22 is unreachable .*route/);
    const e2 = classifyConnectError('nohost:22', Object.assign(new Error('x'), { code: 'ENOTFOUND' }), 1000);
    assert.match(e2.message, /does not resolve/);
  });

  it('a closed transport refuses further use', async () => {
    const t = fresh({});
    await t.exec(['true']);
    await t.close();
    await expectReject(t.exec(['true']), ConnectionLostError);
  });

  describe('local transport, same contract', () => {
    const local = new LocalTransport();
    it('missing program: exit 127 with a message, like a remote shell', async () => {
      const r = await local.exec(['skydeck-no-such-command']);
      assert.equal(r.code, 127);
      assert.match(r.stderr.toString(), /not found/);
      const ch = await local.openChannel(['skydeck-no-such-command']);
      assert.equal(await new Promise((r2) => ch.onClose(r2)), 127);
    });
    it('missing cwd: non-zero exit naming the directory', async () => {
      const r = await local.exec(['pwd'], { cwd: '/nonexistent-dir' });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr.toString(), /nonexistent-dir/);
    });
    it('bad env name rejects', async () => {
      await assert.rejects(local.exec(['true'], { env: { 'A B': '1' } }), /invalid environment variable name/);
    });
  });
});
