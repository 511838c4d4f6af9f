import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { encodeFrame, FrameDecoder, type Frame } from '../../../../src/core/transport/holder/frames';
import { runHolder, type RunningHolder } from '../../../../src/core/transport/holder/server';
import { HolderRefusedError, PID_NAME, SOCKET_NAME } from '../../../../src/core/transport/holder/socketDir';
import { staleSocket } from './socketDir.test';

/** Sends raw bytes; resolves with the frames received until the holder closed the socket. */
function talk(sock: string, bytes: Buffer): Promise<Frame[]> {
  return new Promise((resolve, reject) => {
    const c = net.connect(sock);
    const d = new FrameDecoder();
    const got: Frame[] = [];
    c.on('connect', () => c.write(bytes));
    c.on('data', (b: Buffer) => got.push(...d.push(b)));
    c.on('error', reject);
    c.on('close', () => resolve(got));
  });
}

describe('transport/holder: the holder process', function () {
  this.timeout(20_000);
  let dir: string;
  const running: RunningHolder[] = [];
  beforeEach(() => { dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-holder-')), 'run'); });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((h) => h.stop()));
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  });
  const start = async (idleMs = 60_000): Promise<RunningHolder> => {
    const h = await runHolder({ dir, idleMs });
    running.push(h);
    return h;
  };

  it('listens on a 0600 socket in a 0700 directory, and writes its pid', async () => {
    await start();
    const sock = path.join(dir, SOCKET_NAME);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    assert.equal(fs.lstatSync(sock).mode & 0o777, 0o600);
    assert.equal(fs.readFileSync(path.join(dir, PID_NAME), 'utf8').trim(), String(process.pid));
  });

  it('closes a client that sends garbage or a huge frame, and goes on serving others', async () => {
    await start();
    const sock = path.join(dir, SOCKET_NAME);
    assert.deepEqual(await talk(sock, Buffer.from('GET / HTTP/1.1\r\n\r\n')), []);
    const huge = Buffer.alloc(4);
    huge.writeUInt32BE(0x7fffffff, 0);
    assert.deepEqual(await talk(sock, huge), []);
    const bad = await talk(sock, encodeFrame({ t: 'exec', target: { host: 'h' }, command: 'true' }));
    assert.equal(bad.length, 1);
    assert.equal(bad[0].t, 'fail');
    assert.match(String(bad[0].message), /bad request: target/);
    assert.equal((await talk(sock, encodeFrame({ t: 'go' })))[0].t, 'fail');
  });

  it('exits when idle, removing its socket and pid file', async () => {
    const h = await start(150);
    const sock = path.join(dir, SOCKET_NAME);
    const c = net.connect(sock);
    await new Promise((r) => c.once('connect', r));
    c.destroy();
    assert.equal(await h.done, 'idle');
    assert.ok(!fs.existsSync(sock));
    assert.ok(!fs.existsSync(path.join(dir, PID_NAME)));
  });

  it('a client that stays connected keeps it alive past the idle time', async () => {
    const h = await start(100);
    const c = net.connect(path.join(dir, SOCKET_NAME));
    await new Promise((r) => c.once('connect', r));
    const outcome = await Promise.race([h.done, new Promise((r) => setTimeout(() => r('still running'), 400))]);
    assert.equal(outcome, 'still running');
    c.destroy();
    assert.equal(await h.done, 'idle');
  });

  it('a second holder for a directory with a live one leaves at once', async () => {
    await start();
    const second = await start();
    assert.equal(await second.done, 'another-runs');
    assert.ok(fs.existsSync(path.join(dir, SOCKET_NAME)));
  });

  it('takes the place of a socket left by a holder killed -9; two racing end as one', async () => {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const sock = path.join(dir, SOCKET_NAME);
    await staleSocket(sock);
    const [a, b] = await Promise.all([start(), start()]);
    const ended: string[] = [];
    void a.done.then((w) => ended.push(`a:${w}`));
    void b.done.then((w) => ended.push(`b:${w}`));
    for (let i = 0; i < 60 && !ended.length; i++) await new Promise((r) => setTimeout(r, 50));
    // Past another watchdog tick (500 ms): the survivor is still there, alone.
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(ended.length, 1, `ended: ${ended.join(', ')}`);
    assert.match(ended[0], /:(replaced|another-runs)$/);
    // Exactly one answers on the path: the other stopped, and left the survivor's socket there.
    const frames = await talk(sock, encodeFrame({ t: 'go' }));
    assert.equal(frames[0]?.t, 'fail');
  });

  it('refuses to serve from a directory others can open', async () => {
    fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    await assert.rejects(runHolder({ dir }), HolderRefusedError);
  });
});
