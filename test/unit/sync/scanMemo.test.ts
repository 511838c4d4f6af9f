// The local scan's memo kept beside the manifest (scanMemoFile.ts): a new process (every CLI
// exec) re-stats only the files changed since the last committed sync's scan, and trusts the
// memo only for the manifest file and boot it was written with.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { syncWorkdir } from '../../../src/core/ops/syncFiles';
import { manifestIdentity } from '../../../src/core/sync/manifestStore';
import { forgetScanMemos } from '../../../src/core/sync/fastScan';
import { readScanMemo, writeScanMemo } from '../../../src/core/sync/scanMemoFile';
import { traceSink } from '../../../src/core/util/trace';
import { python, syncTree, type SyncTree } from './syncTree';

/** The scan steps a sync traced (SKYDECK_TRACE), as a new process would run it. */
async function syncAsNewProcess(w: SyncTree) {
  forgetScanMemos();
  const steps: string[] = [];
  const write = traceSink.write;
  const saved = process.env.SKYDECK_TRACE;
  process.env.SKYDECK_TRACE = '1';
  traceSink.write = (line) => void steps.push(line.replace(/^.*\d {2}/, '').trim());
  try {
    const stats = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    return { stats, scan: steps.filter((s) => s.startsWith('scan:')) };
  } finally {
    traceSink.write = write;
    if (saved === undefined) delete process.env.SKYDECK_TRACE;
    else process.env.SKYDECK_TRACE = saved;
  }
}

describe('sync: the scan memo a new process starts from', () => {
  let w: SyncTree;
  beforeEach(async () => {
    w = syncTree({ 'a.py': 'a', 'sub/b.py': 'b', '.gitignore': 'out/\n', 'out/x': 'ignored' }, 'skydeck-scanmemo-');
    // Changes just before a scan began are looked at again (the kernel's coarse clock): the
    // tree is older than that, as a user's is.
    await new Promise((r) => setTimeout(r, 250));
  });
  afterEach(() => {
    fs.rmSync(w.root, { recursive: true, force: true });
    forgetScanMemos();
  });

  it('an in-place edit: the new process re-stats only what changed, and the edit arrives', async () => {
    const first = await syncAsNewProcess(w);
    assert.equal(first.stats.mode, 'full');
    assert.deepEqual(first.scan, [], 'no memo yet: the file system is walked');
    assert.ok(readScanMemo(w.localFile, manifestIdentity(w.localFile)), 'the committed sync left its scan beside the manifest');
    fs.writeFileSync(path.join(w.src, 'sub/b.py'), 'b2-longer');
    const next = await syncAsNewProcess(w);
    assert.deepEqual(next.scan, ['scan: only files changed in place']);
    assert.deepEqual([next.stats.mode, next.stats.files, next.stats.ignored], ['delta', 1, first.stats.ignored]);
    assert.equal(fs.readFileSync(path.join(w.dst, 'sub/b.py'), 'utf8'), 'b2-longer');
  });

  it('a file made, or an ignore file changed: the memo is not enough, and the tree is listed', async () => {
    await syncAsNewProcess(w);
    fs.writeFileSync(path.join(w.src, 'sub/new.py'), 'n');
    const made = await syncAsNewProcess(w);
    assert.deepEqual(made.scan, ['scan: more than files changed in place', 'scan: tree listed by find', 'scan: listing walked']);
    assert.equal(fs.readFileSync(path.join(w.dst, 'sub/new.py'), 'utf8'), 'n');
    fs.writeFileSync(path.join(w.src, '.gitignore'), 'nothing\n');
    const rules = await syncAsNewProcess(w);
    assert.equal(rules.scan[0], 'scan: more than files changed in place');
    assert.equal(fs.readFileSync(path.join(w.dst, 'out/x'), 'utf8'), 'ignored', 'out/ is no longer ignored: sent');
  });

  it('trusted only for the manifest file it was written with, in this boot, with sane values', async () => {
    await syncAsNewProcess(w);
    const id = manifestIdentity(w.localFile);
    const good = readScanMemo(w.localFile, id)!;
    assert.ok(good.startedMs > 0 && good.startedMs <= Date.now());
    assert.equal(readScanMemo(w.localFile, `${id}x`), undefined, 'another manifest file (rewritten since)');
    const file = `${w.localFile}.scan`;
    const stored = JSON.parse(fs.readFileSync(file, 'utf8'));
    const bad = (patch: Record<string, unknown>) => {
      fs.writeFileSync(file, JSON.stringify({ ...stored, ...patch }));
      return readScanMemo(w.localFile, id);
    };
    assert.equal(bad({ boot: 'another-boot' }), undefined, 'written before a reboot: the clock may have stepped back');
    assert.equal(bad({ writtenMs: Date.now() + 5_000 }), undefined, 'the wall clock stepped back 5 s since it was written');
    assert.equal(bad({ writtenMs: stored.startedMs - 1 }), undefined, 'written before its scan began: a step back during the sync');
    assert.equal(bad({ uptimeMs: undefined }), undefined);
    assert.equal(bad({ walk: 0 }), undefined, 'made by another walk or ignore-rule version');
    assert.ok(bad({}), 'unchanged: still trusted (the checks above refuse for their own reason)');
    assert.equal(bad({ startedMs: Date.now() + 60_000 }), undefined, 'a scan in the future would hide every change');
    assert.equal(bad({ startedMs: 'soon' }), undefined);
    assert.equal(bad({ pruned: ['sub\0x'] }), undefined);
    assert.equal(bad({ pruned: 'sub' }), undefined);
    assert.equal(bad({ ignored: -1 }), undefined);
    assert.equal(bad({ v: 2 }), undefined);
    fs.writeFileSync(file, '{not json');
    assert.equal(readScanMemo(w.localFile, id), undefined);
    fs.rmSync(file);
    fs.mkdirSync(file);
    assert.equal(readScanMemo(w.localFile, id), undefined, 'a directory in its place');
    // Refused, the sync walks the tree and is still right.
    fs.writeFileSync(path.join(w.src, 'a.py'), 'a2');
    const next = await syncAsNewProcess(w);
    assert.deepEqual(next.scan, []);
    assert.equal(fs.readFileSync(path.join(w.dst, 'a.py'), 'utf8'), 'a2');
    fs.rmSync(file, { recursive: true });
    writeScanMemo(w.localFile, 'whatever', good);
    assert.equal(readScanMemo(w.localFile, manifestIdentity(w.localFile)), undefined);
  });
  it('an ignore file that is a link: an edit of its target (a file of the tree) is an ignore rule changed', async () => {
    // Rules are read through a link (workdirWalk.ts): the edit changes only the target's ctime,
    // which the memo would take for an ordinary edit and never un-ignore data/.
    fs.mkdirSync(path.join(w.src, 'rules'));
    fs.writeFileSync(path.join(w.src, 'rules', 'ignore'), 'out/\ndata/\n');
    fs.rmSync(path.join(w.src, '.gitignore'));
    fs.symlinkSync('rules/ignore', path.join(w.src, '.gitignore'));
    fs.mkdirSync(path.join(w.src, 'data'));
    fs.writeFileSync(path.join(w.src, 'data', 'd'), 'd');
    await new Promise((r) => setTimeout(r, 250));
    await syncAsNewProcess(w);
    assert.ok(!fs.existsSync(path.join(w.dst, 'data')));
    await new Promise((r) => setTimeout(r, 250));
    fs.writeFileSync(path.join(w.src, 'rules', 'ignore'), 'out/\n');
    await syncAsNewProcess(w);
    assert.equal(fs.readFileSync(path.join(w.dst, 'data', 'd'), 'utf8'), 'd', 'data/ is no longer ignored: sent');
  });
  it('a workdir that is a link, pointed at another (older) tree: that tree is scanned, not the memo of the first', async () => {
    const other = path.join(w.root, 'other');
    fs.mkdirSync(path.join(other, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(other, 'a.py'), 'other a');
    fs.writeFileSync(path.join(other, 'only-here.py'), 'o');
    const link = path.join(w.root, 'wd-link');
    fs.symlinkSync(w.src, link);
    await new Promise((r) => setTimeout(r, 250)); // both trees older than the scans
    const state = w.state;
    forgetScanMemos();
    await syncWorkdir(w.t, python, link, w.dst, state);
    // Retargeting the link moves no ctime in either tree: only the root's identity tells them apart.
    fs.rmSync(link);
    fs.symlinkSync(other, link);
    await syncWorkdir(w.t, python, link, w.dst, state);
    assert.equal(fs.readFileSync(path.join(w.dst, 'a.py'), 'utf8'), 'other a');
    assert.equal(fs.readFileSync(path.join(w.dst, 'only-here.py'), 'utf8'), 'o');
  });
});
