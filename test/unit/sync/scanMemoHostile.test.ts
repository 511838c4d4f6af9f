// Hostile checks of the scan memo (scanMemoFile.ts): changes a new process must not miss.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { syncWorkdir } from '../../../src/core/ops/syncFiles';
import { forgetScanMemos } from '../../../src/core/sync/fastScan';
import { traceSink } from '../../../src/core/util/trace';
import { python, syncTree, type SyncTree } from './syncTree';

async function fresh(w: SyncTree) {
  forgetScanMemos();
  return syncWorkdir(w.t, python, w.src, w.dst, w.state);
}

describe('sync: scan memo, hostile', () => {
  let w: SyncTree;
  beforeEach(async () => {
    w = syncTree({ 'a.py': 'aaaa', 'b.py': 'bbbb', 'sub/c.py': 'cccc', 'out/x': 'x' }, 'skydeck-scanmemo-h-');
    fs.symlinkSync('a.py', path.join(w.src, 'ln'));
    fs.linkSync(path.join(w.src, 'sub/c.py'), path.join(w.root, 'outside-hard'));
    await new Promise((r) => setTimeout(r, 250));
    await fresh(w);
    await new Promise((r) => setTimeout(r, 250));
  });
  afterEach(() => {
    fs.rmSync(w.root, { recursive: true, force: true });
    forgetScanMemos();
  });
  const read = (rel: string) => fs.readFileSync(path.join(w.dst, rel), 'utf8');

  it('same size, mtime set back (touch -d)', async () => {
    const f = path.join(w.src, 'a.py');
    const st = fs.statSync(f);
    fs.writeFileSync(f, 'AAAA');
    fs.utimesSync(f, st.atime, st.mtime);
    await fresh(w);
    assert.equal(read('a.py'), 'AAAA');
  });
  it('a hard link written from outside the tree, mtime set back', async () => {
    const f = path.join(w.root, 'outside-hard');
    const st = fs.statSync(f);
    fs.writeFileSync(f, 'CCCC');
    fs.utimesSync(f, st.atime, st.mtime);
    await fresh(w);
    assert.equal(read('sub/c.py'), 'CCCC');
  });

  for (const at of ['sync: local tree scanned', 'apply: tar sent', 'apply: local manifest staged', 'apply: node done']) {
    it(`an edit (mtime set back) at "${at}"`, async () => {
      const f = path.join(w.src, 'a.py');
      const st = fs.statSync(f);
      const write = traceSink.write;
      process.env.SKYDECK_TRACE = '1';
      let done = false;
      traceSink.write = (line) => {
        if (!done && line.includes(at)) {
          done = true;
          fs.writeFileSync(f, 'QQQQ');
          fs.utimesSync(f, st.atime, st.mtime);
        }
      };
      fs.writeFileSync(path.join(w.src, 'b.py'), 'b-changed');
      try {
        await fresh(w);
      } finally {
        traceSink.write = write;
        delete process.env.SKYDECK_TRACE;
      }
      assert.ok(done);
      await fresh(w);
      assert.equal(read('a.py'), 'QQQQ');
    });
  }
});
