// Files written just before a sync are racy (manifest.ts RACY_MS): a rewrite in the same clock
// tick keeps size and mtime, so the next sync reads them again. After a checkout of 20,000
// files that was a rehash of the whole tree on the first exec. A racy entry now keeps its hash
// when the file's inode is unchanged since the last scan and that scan read the same hash; a
// same-tick rewrite (its ctime moves) is still read again and sent.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hashFile, type ManifestEntry } from '../../../src/core/sync/manifest';
import { forgetScanMemos, scanWorkdirFast } from '../../../src/core/sync/fastScan';
import { syncWorkdir } from '../../../src/core/ops/syncFiles';
import { createLocalTransport } from '../../../src/core/transport/localTransport';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tree(n: number): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-racy-'));
  fs.mkdirSync(path.join(root, 'd'));
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(root, 'd', `f${i}`), `content ${i}\n`);
  return root;
}

/** The same bytes' length, other bytes, and the old mtime put back: a rewrite in the same tick. */
function rewriteInSameTick(file: string): void {
  // Python sets the mtime back to the nanosecond (Node's utimes takes float seconds).
  execFileSync('python3', ['-c', [
    'import os, sys', 'f = sys.argv[1]', 'st = os.stat(f)',
    'b = open(f, "rb").read().upper()', 'open(f, "wb").write(b)',
    'os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))',
  ].join('\n'), file]);
  const after = fs.statSync(file);
  assert.ok(after.ctimeMs > after.mtimeMs, 'the rewrite moved the ctime only');
}

describe('sync: racy entries right after a checkout', () => {
  afterEach(() => forgetScanMemos());

  it('keep their hash while untouched since the last scan; a same-tick rewrite and a hash from another scan are read again', async () => {
    const root = tree(6);
    await sleep(250); // older than the scan's clock slack, still far inside RACY_MS
    const first = await scanWorkdirFast(root, '', new Map());
    const files = first.filter((e) => e.t === 'f');
    assert.ok(files.length === 6 && files.every((e) => e.r === 1 && e.h === ''), 'all racy, none hashed yet');
    for (const e of files) e.h = hashFile(path.join(root, e.p)); // as the sync does while sending
    const prev = new Map<string, ManifestEntry>(first.map((e) => [e.p, { ...e }]));
    prev.get('d/f2')!.h = 'f'.repeat(64); // as if the manifest came from another scan
    rewriteInSameTick(path.join(root, 'd', 'f1'));
    fs.writeFileSync(path.join(root, 'd', 'new'), 'n'); // a new file: the dir changed, the tree is listed
    const second = new Map((await scanWorkdirFast(root, '', prev)).map((e) => [e.p, e]));
    for (const p of ['d/f0', 'd/f3', 'd/f4', 'd/f5']) assert.equal(second.get(p)!.h, prev.get(p)!.h, `${p} kept its hash`);
    assert.equal(second.get('d/f1')!.h, '', 'the rewritten file is hashed again');
    assert.equal(second.get('d/f2')!.h, '', 'a hash the last scan did not read is not trusted');
    assert.equal(second.get('d/new')!.h, '');
  });

  it('a file rewritten in the same tick right after a checkout\'s sync still reaches the node', async () => {
    const src = tree(5);
    await sleep(250);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-racy-node-'));
    const dst = path.join(root, 'wd');
    const state = { nodeStateDir: path.join(root, 'base', 'sync'), localStateDir: path.join(root, 'ws', '.skydeck', 'sync') };
    const t = createLocalTransport({});
    assert.equal((await syncWorkdir(t, 'python3', src, dst, state)).mode, 'full');
    rewriteInSameTick(path.join(src, 'd', 'f3'));
    fs.writeFileSync(path.join(src, 'd', 'new'), 'n');
    const s = await syncWorkdir(t, 'python3', src, dst, state);
    assert.deepEqual([s.mode, s.files], ['delta', 2]);
    assert.equal(fs.readFileSync(path.join(dst, 'd', 'f3'), 'utf8'), 'CONTENT 3\n');
    for (const i of [0, 1, 2, 4]) assert.equal(fs.readFileSync(path.join(dst, 'd', `f${i}`), 'utf8'), `content ${i}\n`);
  });
});
