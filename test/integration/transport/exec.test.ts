import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { AbortedError, type SshTransport } from '../../../src/core/transport';
import { expectReject, setup, type Env } from './helpers';

describe('transport/ssh: exec against a real sshd', function () {
  this.timeout(60_000);
  let env: Env;
  let t: SshTransport;

  before(async () => {
    env = await setup(1);
    t = env.transport(env.hosts[0]);
  });
  after(async () => { await env?.teardown(); });

  it('runs a command as the host user and returns its output', async () => {
    const r = await t.exec(['id', '-un']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout.toString().trim(), env.hosts[0].user);
    assert.equal(r.stderr.length, 0);
    assert.match(t.description, /^ssh sdk-.*@127\.0\.0\.2:\d+$/);
  });

  it('reports exit codes and stderr', async () => {
    const r = await t.execShell('echo out; echo err >&2; exit 3');
    assert.equal(r.code, 3);
    assert.equal(r.stdout.toString(), 'out\n');
    assert.equal(r.stderr.toString(), 'err\n');
    const missing = await t.exec(['skydeck-no-such-command']);
    assert.equal(missing.code, 127);
    assert.match(missing.stderr.toString(), /not found/);
  });

  it('reports a signal death as code null and the signal name', async () => {
    const r = await t.execShell('kill -KILL $$');
    assert.equal(r.code, null);
    assert.equal(r.signal, 'KILL');
  });

  it('passes env and cwd', async () => {
    const r = await t.execShell('printf "%s|%s|%s" "$FOO" "$BAR" "$(pwd)"', {
      env: { FOO: 'a b', BAR: "it's $HOME" }, cwd: '/tmp',
    });
    assert.equal(r.stdout.toString(), "a b|it's $HOME|/tmp");
    await env.hosts[0].exec("mkdir -p ~/'dir with space'");
    const home = await t.exec(['pwd'], { cwd: '~/dir with space' });
    assert.equal(home.stdout.toString().trim(), `${env.hosts[0].home}/dir with space`);
    await assert.rejects(t.exec(['true'], { env: { 'BAD NAME': 'x' } }), /invalid environment variable name/);
  });

  it('a missing cwd fails the command, not the transport', async () => {
    const r = await t.exec(['pwd'], { cwd: '/nonexistent-dir' });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr.toString(), /nonexistent-dir/);
  });

  it('feeds stdin from a string, a Buffer and a stream (with back-pressure)', async () => {
    assert.equal((await t.exec(['cat'], { stdin: 'hello\n' })).stdout.toString(), 'hello\n');
    const bin = Buffer.from([0, 1, 2, 255, 10, 13]);
    assert.deepEqual((await t.exec(['cat'], { stdin: bin })).stdout, bin);
    // 20 MB streamed in 64 KiB chunks; the remote side hashes it.
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    const local = createHash('sha256');
    const src = new Readable({
      read() {
        if (sent >= 20 * 1024 * 1024) return this.push(null);
        const c = Buffer.from(chunk);
        c.writeUInt32BE(sent, 0);
        local.update(c);
        sent += c.length;
        this.push(c);
      },
    });
    const r = await t.exec(['sha256sum'], { stdin: src });
    assert.equal(r.stdout.toString().split(' ')[0], local.digest('hex'));
  });

  it('no stdin means EOF at once (cat does not hang)', async () => {
    const r = await t.exec(['cat']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout.length, 0);
  });

  it('returns 50 MB of output intact and streams it to onStdout', async () => {
    let streamed = 0;
    const r = await t.execShell('head -c 52428800 /dev/urandom > big && sha256sum big >&2 && cat big && rm big', {
      onStdout: (b) => { streamed += b.length; },
    });
    assert.equal(r.code, 0, r.stderr.toString());
    assert.equal(r.stdout.length, 52428800);
    assert.equal(streamed, 52428800);
    assert.equal(createHash('sha256').update(r.stdout).digest('hex'), r.stderr.toString().split(' ')[0]);
  });

  it('abort signals the remote command and rejects with AbortedError', async () => {
    const ac = new AbortController();
    const marker = `skydeck-abort-${process.pid}`;
    const p = t.exec(['sh', '-c', 'echo started; exec sleep 30', marker], { signal: ac.signal, onStdout: () => ac.abort() });
    await expectReject(p, AbortedError);
    // The remote sleep got SIGTERM (OpenSSH >= 7.9 delivers channel signals).
    for (let i = 0; i < 50; i++) {
      const ps = await env.hosts[0].exec('ps -eo args');
      if (!ps.stdout.includes('sleep 30')) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail('remote sleep still running after abort');
  });

  it('an already-aborted signal rejects before running anything', async () => {
    const ac = new AbortController();
    ac.abort();
    await expectReject(t.exec(['touch', 'should-not-exist'], { signal: ac.signal }), AbortedError);
    assert.equal((await env.hosts[0].exec('test -e should-not-exist')).code, 1);
  });

  it('openChannel: interactive stdin/stdout, stderr, exit code', async () => {
    const ch = await t.openChannel(['sh', '-c', 'while read l; do echo "got $l"; echo "e $l" >&2; done; exit 7']);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    ch.onData((b) => out.push(b));
    ch.onStderr((b) => err.push(b));
    const closed = new Promise<number | null>((r) => ch.onClose(r));
    ch.write('one\n');
    ch.write(Buffer.from('two\n'));
    ch.end();
    assert.equal(await closed, 7);
    assert.equal(Buffer.concat(out).toString(), 'got one\ngot two\n');
    assert.equal(Buffer.concat(err).toString(), 'e one\ne two\n');
  });

  it('openChannel: output before onData is registered is kept; close() ends the command', async () => {
    const ch = await t.openChannel(['sh', '-c', 'echo early; exec sleep 30']);
    await new Promise((r) => setTimeout(r, 300));
    const got = await new Promise<string>((r) => ch.onData((b) => r(b.toString())));
    assert.equal(got, 'early\n');
    const closed = new Promise<number | null>((r) => ch.onClose(r));
    ch.close();
    assert.equal(await closed, null);
  });

  it('channels are released: 30 sequential channels on one connection', async () => {
    for (let i = 0; i < 30; i++) {
      const ch = await t.openChannel(['true']);
      await new Promise((r) => ch.onClose(r));
    }
    assert.equal(env.pool.size, 1);
  });
});
