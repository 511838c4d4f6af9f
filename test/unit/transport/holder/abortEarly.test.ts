// An abort that happens while a holder exec opens, or in a callback fed by output that came in
// the same read as `open`, must still end the command: no listener is there yet at that moment.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { AbortedError } from '../../../../src/core/transport/errors';
import { encodeFrame } from '../../../../src/core/transport/holder/frames';
import { HolderTransport } from '../../../../src/core/transport/holder/holderTransport';
import { SOCKET_NAME } from '../../../../src/core/transport/holder/socketDir';
import type { Transport } from '../../../../src/core/transport/types';

describe('transport/holder: an abort before the caller listens', () => {
  let dir: string;
  let server: net.Server;
  let clientClosed: Promise<void>;
  const conns = new Set<net.Socket>();
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-holder-abort-'));
    fs.chmodSync(dir, 0o700);
    let closed!: () => void;
    clientClosed = new Promise((r) => { closed = r; });
    // A holder whose command printed at once and then runs on: `open` and `out` in one write,
    // and no exit until the client goes away (which is how a client cancels).
    server = net.createServer((s) => {
      s.once('data', () => s.write(Buffer.concat([
        encodeFrame({ t: 'open' }),
        encodeFrame({ t: 'out', d: Buffer.from('started\n').toString('base64') }),
      ])));
      conns.add(s);
      s.on('close', () => { conns.delete(s); closed(); });
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(path.join(dir, SOCKET_NAME), r));
    fs.chmodSync(path.join(dir, SOCKET_NAME), 0o600);
  });
  afterEach(async () => {
    // A client the old code left open would hold server.close() for ever.
    for (const c of conns) c.destroy();
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const make = (): HolderTransport => new HolderTransport(
    { host: '127.0.0.1', port: 22, user: 'u', sshDir: dir, agent: false },
    { dir, log: (m) => { throw new Error(m); } },
    (): Transport => { throw new Error('the direct path was used'); },
  );
  const within = <T>(p: Promise<T>, what: string): Promise<T> => Promise.race([
    p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error(`${what} did not happen in 5 s`)), 5000)),
  ]);

  it('an abort from the first output (replayed) rejects with AbortedError and closes the session', async () => {
    const ac = new AbortController();
    const p = make().exec(['sleep', '31'], { signal: ac.signal, onStdout: () => ac.abort() });
    await assert.rejects(within(p, 'the reject'), AbortedError);
    await within(clientClosed, 'the session close');
  });

  it('an abort while the session opens rejects, and a channel opened so is closed', async () => {
    const ac = new AbortController();
    const t = make();
    const p = t.exec(['sleep', '31'], { signal: ac.signal });
    ac.abort();
    await assert.rejects(within(p, 'the reject'), AbortedError);
    const ac2 = new AbortController();
    const chp = t.openChannel(['sleep', '31'], { signal: ac2.signal });
    ac2.abort();
    const ch = await within(chp, 'the channel').catch((e: Error) => e);
    if (ch instanceof Error) { assert.ok(ch instanceof AbortedError, String(ch)); return; }
    await within(new Promise((r) => ch.onClose(r)), 'the channel close');
  });
});
