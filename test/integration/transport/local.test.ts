import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as os from 'node:os';
import { Readable } from 'node:stream';
import { AbortedError, LocalTransport } from '../../../src/core/transport';
import { expectReject } from './helpers';

describe('transport/local: same contract on this machine', function () {
  this.timeout(30_000);
  const t = new LocalTransport();

  it('exec: output, exit code, stderr, env, cwd (with ~)', async () => {
    const r = await t.execShell('printf "%s|%s" "$FOO" "$(pwd)"; echo err >&2; exit 4', { env: { FOO: "a 'b'" }, cwd: '/tmp' });
    assert.equal(r.code, 4);
    assert.equal(r.stdout.toString(), "a 'b'|/tmp");
    assert.equal(r.stderr.toString(), 'err\n');
    assert.equal((await t.exec(['pwd'], { cwd: '~' })).stdout.toString().trim(), os.homedir());
    assert.equal(t.description, 'local');
  });

  it('argv is not interpreted by any shell', async () => {
    const r = await t.exec(['printf', '%s', '$(id) `id` $HOME; rm -rf /']);
    assert.equal(r.stdout.toString(), '$(id) `id` $HOME; rm -rf /');
  });

  it('signal death: code null and the signal name', async () => {
    const r = await t.execShell('kill -KILL $$');
    assert.equal(r.code, null);
    assert.equal(r.signal, 'KILL');
  });

  it('stdin from a stream, 50 MB of output intact', async () => {
    const data = Buffer.alloc(8 * 1024 * 1024, 7);
    const r = await t.exec(['sha256sum'], { stdin: Readable.from([data.subarray(0, 100), data.subarray(100)]) });
    assert.equal(r.stdout.toString().split(' ')[0], createHash('sha256').update(data).digest('hex'));
    const big = await t.execShell('head -c 52428800 /dev/zero');
    assert.equal(big.stdout.length, 52428800);
  });

  it('abort kills the whole process group', async () => {
    const ac = new AbortController();
    const marker = `skydeck-local-abort-${process.pid}`;
    const p = t.exec(['sh', '-c', `sleep 30 & echo started; wait`, marker], { signal: ac.signal, onStdout: () => ac.abort() });
    await expectReject(p, AbortedError);
    for (let i = 0; i < 40; i++) {
      const ps = await t.exec(['pgrep', '-f', marker]);
      if (ps.code === 1) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail('processes survived the abort');
  });

  it('openChannel: interactive, buffered until onData, close()', async () => {
    const ch = await t.openChannel(['sh', '-c', 'echo ready; while read l; do echo "got $l"; done; exit 5']);
    await new Promise((r) => setTimeout(r, 100));
    const out: string[] = [];
    ch.onData((b) => out.push(b.toString()));
    const closed = new Promise<number | null>((r) => ch.onClose(r));
    ch.write('x\n');
    ch.end();
    assert.equal(await closed, 5);
    assert.equal(out.join(''), 'ready\ngot x\n');
    const long = await t.openChannel(['sleep', '30']);
    const c2 = new Promise<number | null>((r) => long.onClose(r));
    long.close();
    assert.equal(await c2, null);
  });

  it('100 concurrent execs', async () => {
    const rs = await Promise.all(Array.from({ length: 100 }, (_, i) => t.exec(['printf', '%s', String(i)])));
    rs.forEach((r, i) => assert.equal(r.stdout.toString(), String(i)));
  });
});
