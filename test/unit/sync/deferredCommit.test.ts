// The manifest written after the sync returns (an exec writes it while its submit waits on the
// node, manifestSync.ts deferred), and the shortcuts of the one-file path (deltaOf's removal
// count, the manifest read shared): what each must still get right.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { syncWorkdir } from '../../../src/core/ops/syncFiles';
import { commitManifest, readManifest, stageManifest } from '../../../src/core/sync/manifestStore';
import { deltaOf, digestOf, type ManifestEntry } from '../../../src/core/sync/manifest';
import { forgetScanMemos, scanWorkdirFast } from '../../../src/core/sync/fastScan';
import { scanWorkdir } from '../../../src/core/sync/manifest';
import { traceSink } from '../../../src/core/util/trace';

import { python, syncTree } from './syncTree';

const setup = (files: Record<string, string>) => syncTree(files, 'skydeck-deferred-');

function write(root: string, rel: string, body: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), body);
}

const tree = (root: string) => Object.fromEntries(
  fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((d) => d.isFile())
    .map((d) => { const f = path.join(d.parentPath, d.name); return [path.relative(root, f), fs.readFileSync(f, 'utf8')]; }),
);

describe('manifest written after the sync returns (deferred)', () => {
  it('lands once its work settles, and the next sync is a delta from it', async () => {
    const w = setup({ 'a.py': 'a', 'b.py': 'b' });
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    const before = fs.readFileSync(w.localFile);
    write(w.src, 'a.py', 'a2-longer');
    const deferred: Promise<Error | undefined>[] = [];
    const s = await syncWorkdir(w.t, python, w.src, w.dst, w.state, false, deferred);
    assert.deepEqual([s.mode, s.files], ['delta', 1]);
    assert.equal(fs.readFileSync(path.join(w.dst, 'a.py'), 'utf8'), 'a2-longer', 'the node has it when the sync returns');
    assert.equal(deferred.length, 1);
    assert.deepEqual(fs.readFileSync(w.localFile), before, 'the manifest was written before the caller could go on');
    assert.deepEqual(await Promise.all(deferred), [undefined]);
    assert.notDeepEqual(fs.readFileSync(w.localFile), before);
    const next = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.deepEqual([next.mode, next.files, next.removed], ['delta', 0, 0]);
  });

  it('never written (the process died after the node applied): the next sync is full, leaves the node right, and deletes again from then on', async () => {
    const w = setup({ 'a.py': 'a', 'b.py': 'b', 'd/c.py': 'c' });
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    const before = fs.readFileSync(w.localFile);
    fs.rmSync(path.join(w.src, 'b.py'));
    write(w.src, 'a.py', 'a2-longer');
    const deferred: Promise<Error | undefined>[] = [];
    await syncWorkdir(w.t, python, w.src, w.dst, w.state, false, deferred);
    await Promise.all(deferred);
    // As a new process after that crash: the old manifest, no staged one, no scan memo.
    fs.writeFileSync(w.localFile, before);
    for (const n of fs.readdirSync(w.state.localStateDir)) if (n !== path.basename(w.localFile)) fs.rmSync(path.join(w.state.localStateDir, n));
    forgetScanMemos();
    write(w.src, 'd/c.py', 'c2-longer');
    const s = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.equal(s.mode, 'full', 'a delta from a manifest the node does not hold');
    assert.deepEqual(tree(w.dst), tree(w.src));
    fs.rmSync(path.join(w.src, 'a.py'));
    const del = await syncWorkdir(w.t, python, w.src, w.dst, w.state, false, deferred);
    await Promise.all(deferred);
    assert.deepEqual([del.mode, del.removed], ['delta', 1]);
    assert.deepEqual(tree(w.dst), tree(w.src));
  });

  it('staged before the sync returns: a crash before it lands still lets the next sync delete', async () => {
    const w = setup({ 'a.py': 'a', 'b.py': 'b', 'd/c.py': 'c' });
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    write(w.src, 'a.py', 'a2-longer');
    const deferred: Promise<Error | undefined>[] = [];
    await syncWorkdir(w.t, python, w.src, w.dst, w.state, false, deferred);
    // What a kill -9 right now leaves: the old manifest, and the new one staged beside it.
    const left = new Map(fs.readdirSync(w.state.localStateDir).map((n) => [n, fs.readFileSync(path.join(w.state.localStateDir, n))]));
    assert.ok([...left.keys()].some((n) => n.includes('.tmp-')), `nothing staged yet: ${[...left.keys()].join(' ')}`);
    await Promise.all(deferred);
    for (const n of fs.readdirSync(w.state.localStateDir)) fs.rmSync(path.join(w.state.localStateDir, n));
    for (const [n, b] of left) if (!n.endsWith('.scan')) fs.writeFileSync(path.join(w.state.localStateDir, n), b);
    forgetScanMemos();
    fs.rmSync(path.join(w.src, 'b.py'));
    const s = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.deepEqual([s.mode, s.removed], ['delta', 1]);
    assert.deepEqual(tree(w.dst), tree(w.src));
  });

  it('a link where the manifest goes is refused before anything reaches the node', async () => {
    const w = setup({ 'a.py': 'a' });
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    const elsewhere = path.join(w.root, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.renameSync(w.state.localStateDir, path.join(w.root, 'kept'));
    fs.symlinkSync(elsewhere, w.state.localStateDir);
    write(w.src, 'a.py', 'a2-longer');
    const deferred: Promise<Error | undefined>[] = [];
    await assert.rejects(syncWorkdir(w.t, python, w.src, w.dst, w.state, false, deferred), /symbolic link/);
    assert.equal(fs.readFileSync(path.join(w.dst, 'a.py'), 'utf8'), 'a', 'the node was synced although its record could not be kept');
    assert.deepEqual(deferred, []);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
  });
});

describe('one-file path shortcuts', () => {
  const f = (p: string, h = 'a'.repeat(64)): ManifestEntry => ({ p, t: 'f', s: 1, m: 5000, x: 0o644, h });

  it('deltaOf finds a removal when as many paths came as went', () => {
    const prev = new Map([f('a'), f('b'), f('c')].map((e) => [e.p, e]));
    const d = deltaOf(prev, [f('a'), f('c'), f('new')], '/nonexistent');
    assert.deepEqual(d.remove, ['b']);
    assert.deepEqual(d.send.map((e) => e.p), ['new']);
    assert.deepEqual(deltaOf(prev, [f('a'), f('b'), f('c')], '/nonexistent').remove, []);
  });

  it('an in-place scan after a listed one finds each path where that scan put it (the kept index is not the older scan\'s)', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-index-'));
    for (const n of ['b', 'c', 'd']) write(root, `s/${n}`, n);
    await new Promise((r) => setTimeout(r, 300)); // the tree's own making is older than the ctime slack
    const ways: string[] = [];
    const write0 = traceSink.write;
    const env = process.env.SKYDECK_TRACE;
    process.env.SKYDECK_TRACE = '1';
    traceSink.write = (l) => void (l.includes('scan:') && ways.push(l.slice(l.indexOf('scan:'))));
    try {
      await scanWorkdirFast(root, '', new Map()); // walked
      fs.appendFileSync(path.join(root, 's', 'c'), '-more');
      assert.deepEqual(await scanWorkdirFast(root, '', new Map()), scanWorkdir(root, '', new Map())); // in place: index made
      write(root, 's/a', 'new, sorts first'); // every later path moves one place
      await new Promise((r) => setTimeout(r, 300)); // older than the slack of the scan that lists it
      assert.deepEqual(await scanWorkdirFast(root, '', new Map()), scanWorkdir(root, '', new Map())); // listed
      fs.appendFileSync(path.join(root, 's', 'd'), '-longer');
      assert.deepEqual(await scanWorkdirFast(root, '', new Map()), scanWorkdir(root, '', new Map())); // in place again
    } finally {
      traceSink.write = write0;
      if (env === undefined) delete process.env.SKYDECK_TRACE;
      else process.env.SKYDECK_TRACE = env;
    }
    assert.deepEqual(ways.filter((w) => w.includes('changed in place')), [
      'scan: only files changed in place\n', 'scan: more than files changed in place\n', 'scan: only files changed in place\n',
    ]);
  });

  it('a manifest read back is not changed by later changes to the entries it was written from', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mread-'));
    const file = path.join(dir, 'sync', 'm.json');
    const cur = [f('a', ''), f('b')];
    commitManifest(stageManifest(file, cur, digestOf(cur)));
    cur[0].h = 'c'.repeat(64); // a hash filled in on the scan's entry by a later sync
    const read = readManifest(file)!;
    assert.equal(read.get('a')!.h, '');
    assert.equal(readManifest(file), read, 'read again from this process: the same entries, not re-read');
  });
});
