import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConnectionRefusedError, HostKeyRejectedError, SshPool, SshTransport } from '../../../src/core/transport';
import { freePort } from '../../hosts/system';
import { expectReject, setup, type Env } from './helpers';

describe('transport/ssh: ProxyJump through one host', function () {
  this.timeout(60_000);
  let env: Env;

  before(async () => { env = await setup(2); });
  after(async () => { await env?.teardown(); });

  it('reaches the second host through the first, and shares the jump connection', async () => {
    const [jump, target] = env.hosts;
    const t = env.transport(target, { jump: { host: jump.address, port: jump.port, user: jump.user } });
    const r = await t.exec(['sh', '-c', 'id -un; echo "$SSH_CONNECTION"']);
    const [user, conn] = r.stdout.toString().trim().split('\n');
    assert.equal(user, target.user);
    // The target sees the connection arrive at its own address, from the jump host's sshd.
    assert.equal(conn.split(' ')[2], target.address);
    assert.match(t.description, new RegExp(`via ${jump.user}@${jump.address}:${jump.port}$`));
    // The jump host's own connection is the pooled one for that host, not a second one.
    const direct = env.transport(jump);
    assert.equal((await direct.exec(['id', '-un'])).stdout.toString().trim(), jump.user);
    assert.equal(env.pool.size, 2);
    assert.equal((await jump.exec('ps -eo args')).stdout.split('\n').filter((l) => /\[priv\]/.test(l)).length, 1);
    // Both host keys were verified and recorded (TOFU in these tests).
    const known = fs.readFileSync(path.join(env.tmp, 'known_hosts'), 'utf8');
    assert.ok(known.includes(env.knownHostsLine(jump)) && known.includes(env.knownHostsLine(target)));
  });

  it('survives a drop of the jump connection', async () => {
    const [jump, target] = env.hosts;
    const t = env.transport(target, { jump: { host: jump.address, port: jump.port, user: jump.user }, reconnect: { baseDelayMs: 50 } });
    await t.exec(['true']);
    await jump.killConnections();
    assert.equal((await t.exec(['echo', 'again'])).stdout.toString(), 'again\n');
  });

  it('a refused target port names the target and the jump host', async () => {
    const [jump, target] = env.hosts;
    const port = await freePort(target.address);
    const t = new SshTransport(env.options(target, { port, jump: { host: jump.address, port: jump.port, user: jump.user } }), new SshPool());
    const e = await expectReject(t.exec(['true']), ConnectionRefusedError);
    assert.ok(e.message.includes(`${target.address}:${port}`) && e.message.includes(`via ${jump.address}`), e.message);
    await t.close();
  });

  it('the jump host key is verified too', async () => {
    const [jump, target] = env.hosts;
    const t = new SshTransport(env.options(target, {
      knownHostsFile: path.join(env.tmp, 'only_target'), trustOnFirstUse: false,
      onUnknownHostKey: async (h) => h === `${target.address}:${target.port}`,
      jump: { host: jump.address, port: jump.port, user: jump.user },
    }), new SshPool());
    const e = await expectReject(t.exec(['true']), HostKeyRejectedError);
    assert.ok(e.message.includes(`${jump.address}:${jump.port}`), e.message);
    await t.close();
  });
});
