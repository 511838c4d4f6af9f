// HolderTransport against a real sshd through an in-process holder: the same bytes, exit codes,
// cancellation and host-key refusals as the direct transport.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { utils as sshUtils } from 'ssh2';
import { AbortedError, HostKeyChangedError, SshPool, SshTransport, type SshTransportOptions } from '../../../src/core/transport';
import { HolderTransport } from '../../../src/core/transport/holder/holderTransport';
import { runHolder, type RunningHolder } from '../../../src/core/transport/holder/server';
import { expectReject, setup, type Env } from './helpers';

describe('transport/holder: HolderTransport over a real sshd', function () {
  this.timeout(60_000);
  let env: Env;
  let holder: RunningHolder;
  let dir: string;
  let opts: SshTransportOptions;
  const directs: SshTransport[] = [];
  let starts = 0;
  const make = (o: SshTransportOptions = opts): HolderTransport =>
    new HolderTransport(o, { dir, start: () => { starts++; } }, () => {
      const d = new SshTransport(o, new SshPool());
      directs.push(d);
      return d;
    });

  before(async () => {
    env = await setup(1);
    const h = env.hosts[0];
    dir = path.join(env.tmp, 'holder');
    const known = path.join(env.tmp, 'known_hosts_holder');
    fs.writeFileSync(known, env.knownHostsLine(h) + '\n');
    opts = env.options(h, { knownHostsFile: known, trustOnFirstUse: false });
    holder = await runHolder({ dir, idleMs: 60_000 });
  });
  after(async () => {
    await holder?.stop();
    await Promise.all(directs.map((d) => d.close()));
    await env?.teardown();
  });

  it('passes quotes, $(), newlines and binary stdin through unchanged, with exit codes', async () => {
    const t = make();
    const hostile = `a'b "c" $(touch /tmp/skydeck-pwned) \`id\` \n; rm -rf ~ #`;
    const r = await t.exec(['printf', '%s', hostile]);
    assert.equal(r.stdout.toString(), hostile);
    assert.ok(!fs.existsSync('/tmp/skydeck-pwned'), 'nothing in the argument ran');
    assert.equal((await t.execShell('exit 7')).code, 7);
    const big = randomBytes(3 * 1024 * 1024);
    const c = await t.exec(['sh', '-c', 'cat; sha256sum >&2 </dev/null; exit 0'], { stdin: big });
    assert.equal(createHash('sha256').update(c.stdout).digest('hex'), createHash('sha256').update(big).digest('hex'));
    assert.equal(holder.connections, 1);
    assert.equal(directs.length, 0, 'nothing went direct');
  });

  it('a channel streams both ways and its close ends the remote command', async () => {
    const t = make();
    const ch = await t.openChannel(['sh', '-c', 'while read l; do echo "got $l"; done']);
    const got = new Promise<string>((r) => ch.onData((b) => r(b.toString())));
    ch.write('x\n');
    assert.equal(await got, 'got x\n');
    const closed = new Promise<number | null>((r) => ch.onClose(r));
    ch.close();
    await closed;
  });

  it('abort signals the remote command and rejects with AbortedError', async () => {
    const t = make();
    const ac = new AbortController();
    const p = t.exec(['sh', '-c', 'echo started; exec sleep 31', 'holder-abort'], { signal: ac.signal, onStdout: () => ac.abort() });
    await expectReject(p, AbortedError);
    for (let i = 0; i < 60; i++) {
      if (!(await env.hosts[0].exec('ps -eo args')).stdout.includes('sleep 31')) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail('remote sleep still running after abort');
  });

  it('a key the caller does not know is never used through the holder: the direct path refuses it', async () => {
    const other = sshUtils.generateKeyPairSync('ed25519').public.split(' ').slice(0, 2).join(' ');
    const h = env.hosts[0];
    const known = path.join(env.tmp, 'known_hosts_other');
    fs.writeFileSync(known, `[${h.address}]:${h.port} ${other}\n`);
    const t = make({ ...opts, knownHostsFile: known });
    const marker = path.join(h.home, 'holder-should-not-exist');
    await expectReject(t.exec(['touch', marker]), HostKeyChangedError);
    assert.ok(!fs.existsSync(marker));
  });

  it('with no holder answering it starts one and goes direct', async () => {
    const t = new HolderTransport(opts, { dir: path.join(env.tmp, 'none'), start: () => { starts++; } }, () => {
      const d = new SshTransport(opts, new SshPool());
      directs.push(d);
      return d;
    });
    const before = starts;
    fs.mkdirSync(path.join(env.tmp, 'none'), { mode: 0o700 });
    assert.equal((await t.exec(['echo', 'direct'])).stdout.toString(), 'direct\n');
    assert.equal(starts, before + 1);
  });
});

describe('transport/holder: a holder that accepts and never answers', () => {
  it('does not hold the caller: it goes direct once the answer time passes', async function () {
    this.timeout(60_000);
    const env = await setup(1);
    const net = await import('node:net');
    const { setAnswerMsForTests } = await import('../../../src/core/transport/holder/clientSession');
    const dir = path.join(env.tmp, 'mute');
    fs.mkdirSync(dir, { mode: 0o700 });
    // A socket that takes connections and reads nothing, as a SIGSTOPped holder's backlog does.
    const mute = net.createServer(() => undefined).listen(path.join(dir, 'holder.sock'));
    await new Promise((r) => mute.once('listening', r));
    fs.chmodSync(path.join(dir, 'holder.sock'), 0o600);
    setAnswerMsForTests(300);
    const direct = new SshTransport(env.options(env.hosts[0]), new SshPool());
    try {
      const t = new HolderTransport(env.options(env.hosts[0]), { dir }, () => direct);
      assert.equal((await t.exec(['echo', 'went direct'])).stdout.toString(), 'went direct\n');
    } finally {
      setAnswerMsForTests(20_000);
      mute.close();
      await direct.close();
      await env.teardown();
    }
  });
});
