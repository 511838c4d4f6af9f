// A job's edit on the node while a sync uploads — after that sync's drift check looked, before
// its apply on the node began — is restored by the next sync: the node lists what changed since
// its apply process started (with the check), not since the upload ended (manifestNode.ts).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { syncWorkdir } from '../../../src/core/ops/syncFiles';
import { createLocalTransport } from '../../../src/core/transport/localTransport';
import { traceSink } from '../../../src/core/util/trace';

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('a node edit during an upload', function () {
  this.timeout(90_000);
  it('is seen by the next drift check, however long the upload took', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-upl-'));
    const src = path.join(root, 'src');
    fs.mkdirSync(path.join(src, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(src, 'sub', 'kept.py'), 'kept');
    fs.writeFileSync(path.join(src, 'a.py'), 'a');
    const t = createLocalTransport();
    const dst = path.join(root, 'wd');
    const state = { nodeStateDir: path.join(root, 'base', 'sync'), localStateDir: path.join(root, 'ws', '.skydeck', 'sync') };
    await syncWorkdir(t, 'python3', src, dst, state);
    await new Promise((r) => setTimeout(r, 1100));
    fs.writeFileSync(path.join(src, 'a.py'), 'a2');
    const write = traceSink.write;
    process.env.SKYDECK_TRACE = '1';
    let done = false;
    // Between the check's answer and the tar: a slow upload, a job's edit in the middle of it.
    traceSink.write = (line) => {
      if (done || !line.includes('apply: token made')) return;
      done = true;
      sleep(1300);
      fs.writeFileSync(path.join(dst, 'sub', 'kept.py'), 'job edit');
      sleep(1300);
    };
    try {
      assert.equal((await syncWorkdir(t, 'python3', src, dst, state)).files, 1);
    } finally {
      traceSink.write = write;
      delete process.env.SKYDECK_TRACE;
    }
    assert.ok(done);
    const s = await syncWorkdir(t, 'python3', src, dst, state);
    assert.deepEqual([s.mode, s.files], ['delta', 1]);
    assert.equal(fs.readFileSync(path.join(dst, 'sub', 'kept.py'), 'utf8'), 'kept');
    fs.rmSync(root, { recursive: true, force: true });
  });
});
