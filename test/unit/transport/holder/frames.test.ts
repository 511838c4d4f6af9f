import assert from 'node:assert/strict';
import { encodeFrame, FrameDecoder, FrameError, MAX_FRAME } from '../../../../src/core/transport/holder/frames';
import { checkExec } from '../../../../src/core/transport/holder/protocol';
import { prng } from '../../../support/prng';

describe('transport/holder: frame codec', () => {
  it('round-trips frames split at every byte', () => {
    const frames = [{ t: 'out', d: Buffer.from('hé\n\0').toString('base64') }, { t: 'exit', code: 3 }];
    const bytes = Buffer.concat(frames.map(encodeFrame));
    for (let cut = 0; cut <= bytes.length; cut++) {
      const d = new FrameDecoder();
      assert.deepEqual([...d.push(bytes.subarray(0, cut)), ...d.push(bytes.subarray(cut))], frames);
    }
  });

  it('refuses a huge length from the header alone, without waiting for the body', () => {
    const d = new FrameDecoder();
    const head = Buffer.alloc(4);
    head.writeUInt32BE(0xffffffff, 0);
    assert.throws(() => d.push(head), FrameError);
    head.writeUInt32BE(MAX_FRAME + 1, 0);
    assert.throws(() => new FrameDecoder().push(head), FrameError);
    assert.throws(() => encodeFrame({ t: 'out', d: 'x'.repeat(MAX_FRAME) }), FrameError);
  });

  it('refuses bodies that are not JSON objects with a string t', () => {
    for (const body of ['{', 'null', '[1]', '"s"', '{"t":1}', '{}', '\xff\xfe']) {
      const b = Buffer.from(body, 'latin1');
      const head = Buffer.alloc(4);
      head.writeUInt32BE(b.length, 0);
      assert.throws(() => new FrameDecoder().push(Buffer.concat([head, b])), FrameError, body);
    }
  });

  it('random bytes give frames or a FrameError, never another exception', () => {
    const rnd = prng(19);
    for (let i = 0; i < 2000; i++) {
      const b = Buffer.alloc(Math.floor(rnd() * 64));
      for (let j = 0; j < b.length; j++) b[j] = Math.floor(rnd() * 256);
      // Small lengths now and then, so some bodies are complete garbage rather than cut short.
      if (b.length >= 4 && rnd() < 0.5) b.writeUInt32BE(Math.floor(rnd() * (b.length - 3)), 0);
      try {
        new FrameDecoder().push(b);
      } catch (e) {
        assert.ok(e instanceof FrameError, String(e));
      }
    }
  });

  it('checks the exec request field by field', () => {
    const ok = { t: 'exec', command: 'true', target: { host: 'h', port: 22, user: 'u', agent: false, sshDir: '/x', knownHostsFiles: ['/k'] } };
    assert.equal(typeof checkExec(ok), 'object');
    assert.match(checkExec({ ...ok, target: { ...ok.target, port: 0 } }) as string, /port/);
    assert.match(checkExec({ ...ok, target: { ...ok.target, knownHostsFiles: [] } }) as string, /knownHostsFiles/);
    assert.match(checkExec({ ...ok, target: { ...ok.target, keyFile: 'a\0b' } }) as string, /keyFile/);
    assert.match(checkExec({ ...ok, target: { ...ok.target, agent: 7 } }) as string, /agent/);
    assert.match(checkExec({ ...ok, command: '' }) as string, /command/);
    assert.match(checkExec({ t: 'go' }) as string, /expected exec/);
  });
});
