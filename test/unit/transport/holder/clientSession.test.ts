// The client end of a holder exec: a quick command's output and exit can reach the client in the
// same read as `open`, before the caller (who awaits openSession) has registered for frames.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { encodeFrame, type Frame } from '../../../../src/core/transport/holder/frames';
import { openSession } from '../../../../src/core/transport/holder/clientSession';

describe('transport/holder: client session', () => {
  let dir: string;
  let server: net.Server;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-holder-client-')); });
  afterEach(async () => {
    await new Promise((r) => server?.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('frames that come with `open` in one read (a quick command) reach the caller, in order', async () => {
    const sockPath = path.join(dir, 's');
    server = net.createServer((s) => {
      // Answers the exec with everything at once, as a loaded holder's coalesced writes arrive.
      s.once('data', () => s.end(Buffer.concat([
        encodeFrame({ t: 'open' }),
        encodeFrame({ t: 'out', d: Buffer.from('root=/x\n').toString('base64') }),
        encodeFrame({ t: 'err', d: Buffer.from('warn\n').toString('base64') }),
        encodeFrame({ t: 'exit', code: 0 }),
      ])));
    });
    await new Promise<void>((r) => server.listen(sockPath, r));
    const target = { host: '127.0.0.1', port: 22, user: 'u', agent: false as const, sshDir: dir, knownHostsFiles: [] };
    const o = await openSession(sockPath, target, 'true', 'test');
    assert.ok('session' in o, JSON.stringify(o));
    // The caller registers a tick later, as holderTransport does after its await.
    await new Promise((r) => setImmediate(r));
    const got: Frame[] = [];
    o.session.onFrame((f) => got.push(f));
    const exited = await new Promise<boolean>((r) => o.session.onEnd(r));
    assert.equal(exited, true);
    assert.deepEqual(got.map((f) => f.t), ['out', 'err', 'exit']);
    assert.equal(Buffer.from(String(got[0].d), 'base64').toString(), 'root=/x\n');
  });
});
