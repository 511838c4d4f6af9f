// The dirs our own apply wrote into are vouched for at the next drift check (manifestNode.ts
// record_dirs, nodeListing.ts): not listed whole for our renames, yet a job's change to them
// after the apply — or one the apply found when it looked — is still seen.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { syncWorkdir } from '../../../src/core/ops/syncFiles';
import { createLocalTransport } from '../../../src/core/transport/localTransport';
import { shellQuote } from '../../../src/core/transport/shellQuote';
import { listedDirs, nodeListScript } from '../../../src/core/sync/nodeListing';
import { manifestDigest, manifestFile, readManifest } from '../../../src/core/sync/manifestStore';
import { sha256 } from '../../../src/core/sync/manifest';
import { startApply } from '../../../src/core/sync/manifestSync';

function setup() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-own-'));
  const src = path.join(root, 'src');
  fs.mkdirSync(path.join(src, 'sub', 'deep'), { recursive: true });
  for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(src, 'sub', `f${i}.txt`), `f${i}`);
  fs.writeFileSync(path.join(src, 'sub', 'deep', 'g.txt'), 'g');
  fs.writeFileSync(path.join(src, 'a.py'), 'a');
  const t = createLocalTransport();
  const dst = path.join(root, 'wd');
  const state = { nodeStateDir: path.join(root, 'base', 'sync'), localStateDir: path.join(root, 'ws', '.skydeck', 'sync') };
  const stateFile = path.join(state.nodeStateDir, `${sha256(dst).slice(0, 32)}.json`);
  const check = async () => {
    const prev = readManifest(manifestFile(state.localStateDir, t.description, dst, src))!;
    const r = await t.execShell(nodeListScript('python3', shellQuote(dst), stateFile, manifestDigest(prev)), { stdin: listedDirs(prev) });
    assert.equal(r.code, 0, r.stderr.toString());
    return r.stdout.toString();
  };
  return { root, src, dst, state, t, stateFile, check };
}

describe('dirs our own apply changed (drift check)', function () {
  this.timeout(90_000);
  it('are not listed whole at the next check: only the file sent shows, as itself', async () => {
    const w = setup();
    await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
    await new Promise((r) => setTimeout(r, 1100));
    fs.writeFileSync(path.join(w.src, 'sub', 'f7.txt'), 'edited');
    assert.deepEqual((await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state)).files, 1);
    const out = await w.check();
    assert.match(out, /^ok changed [0-9a-f]{16}\n/);
    assert.ok(!out.includes('./sub\0D\0'), 'sub was listed whole for our own rename');
    assert.ok(!out.includes('./sub/f3.txt\0'), 'an untouched file of sub was listed');
    assert.ok(!out.includes('.\0D\0'), 'the root was listed whole for our temp dir');
    assert.equal((await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state)).files, 0);
    fs.rmSync(w.root, { recursive: true, force: true });
  });

  it('a job\'s deletion in such a dir right after the apply is restored', async () => {
    const w = setup();
    await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
    fs.writeFileSync(path.join(w.src, 'sub', 'f7.txt'), 'edited');
    await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
    // As soon as the apply returns (the record's tick has passed: the apply waited for it).
    fs.rmSync(path.join(w.dst, 'sub', 'f3.txt'));
    fs.rmSync(path.join(w.dst, 'sub', 'deep'), { recursive: true });
    const out = await w.check();
    assert.ok(out.includes('./sub\0D\0'), 'sub changed after the record: listed whole');
    const s = await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
    assert.equal(s.mode, 'delta');
    assert.equal(fs.readFileSync(path.join(w.dst, 'sub', 'f3.txt'), 'utf8'), 'f3');
    assert.equal(fs.readFileSync(path.join(w.dst, 'sub', 'deep', 'g.txt'), 'utf8'), 'g');
    fs.rmSync(w.root, { recursive: true, force: true });
  });

  it('a dir missing an entry when the apply looked (a job\'s change in the same clock tick) is not vouched for', async () => {
    const w = setup();
    await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
    const localFile = manifestFile(w.state.localStateDir, w.t.description, w.dst, w.src);
    const prev = readManifest(localFile)!;
    fs.writeFileSync(path.join(w.src, 'sub', 'f7.txt'), 'edited');
    const f7 = { ...prev.get('sub/f7.txt')!, s: 6, m: fs.statSync(path.join(w.src, 'sub', 'f7.txt')).mtimeMs, h: '' };
    // The new manifest names sub/gone.txt, which the node does not hold when the apply looks:
    // what a job's deletion between our rename and that look leaves.
    const gone = { ...prev.get('sub/f3.txt')!, p: 'sub/gone.txt' };
    const all = [...prev.values()].map((e) => (e.p === 'sub/f7.txt' ? f7 : e));
    all.push(gone);
    const apply = startApply({ transport: w.t, python: 'python3', remoteDir: w.dst, remoteDirWord: shellQuote(w.dst), nodeStateDir: w.state.nodeStateDir, localDir: w.src, localFile });
    const stats = { files: 0, bytes: 0, ignored: 0, mode: 'delta' as const, removed: 0 };
    assert.equal(await apply.send(manifestDigest(prev), all, { send: [f7], remove: [], touch: [] }, stats), 0);
    const records = fs.readFileSync(`${w.stateFile}.dirs`, 'utf8');
    assert.ok(records.endsWith(' .\n') || records.includes(' .\n'), records);
    assert.ok(!records.includes(' ./sub\n'), `sub vouched for without gone.txt: ${records}`);
    const out = await w.check();
    assert.ok(out.includes('./sub\0D\0'), 'sub not listed whole');
    fs.rmSync(w.root, { recursive: true, force: true });
  });

  it('a link planted where the apply\'s clock probe goes: the sync finishes, nothing is vouched for, nothing written through it', async () => {
    const w = setup();
    await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
    const target = path.join(w.root, 'target');
    fs.writeFileSync(target, 'untouched');
    fs.rmSync(`${w.stateFile}.probe`, { force: true });
    fs.symlinkSync(target, `${w.stateFile}.probe`);
    fs.writeFileSync(path.join(w.src, 'sub', 'f7.txt'), 'edited');
    const s = await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
    assert.deepEqual([s.mode, s.files], ['delta', 1]);
    assert.ok(!fs.existsSync(`${w.stateFile}.dirs`));
    assert.equal(fs.readFileSync(target, 'utf8'), 'untouched');
    fs.rmSync(path.join(w.dst, 'sub', 'f3.txt'));
    assert.equal((await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state)).files, 1);
    assert.equal(fs.readFileSync(path.join(w.dst, 'sub', 'f3.txt'), 'utf8'), 'f3');
    fs.rmSync(w.root, { recursive: true, force: true });
  });

  it('a sync right after another does not list again every file that one placed (its since is not before that apply ended)', async () => {
    const w = setup();
    for (let i = 0; i < 2000; i++) fs.writeFileSync(path.join(w.src, 'sub', `many${i}.txt`), `m${i}`);
    await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
    fs.writeFileSync(path.join(w.src, 'sub', 'f7.txt'), 'edited');
    assert.equal((await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state)).files, 1);
    const out = await w.check();
    const listed = out.split('\0').filter((f) => f.startsWith('./sub/many')).length;
    assert.ok(listed < 1000, `${listed} files of the sync before listed again`);
    // And a job's edit right after still shows.
    fs.writeFileSync(path.join(w.dst, 'sub', 'many5.txt'), 'job edit');
    assert.equal((await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state)).files, 1);
    assert.equal(fs.readFileSync(path.join(w.dst, 'sub', 'many5.txt'), 'utf8'), 'm5');
    fs.rmSync(w.root, { recursive: true, force: true });
  });

  it('glob characters in a dir name are matched as themselves', async () => {
    const w = setup();
    for (const n of ['a*', 'a[b]', 'q?', 'back\\slash']) {
      fs.mkdirSync(path.join(w.src, n));
      fs.writeFileSync(path.join(w.src, n, 'x'), 'x');
    }
    fs.mkdirSync(path.join(w.src, 'ab')); // matched by the glob a* if it were not escaped
    fs.writeFileSync(path.join(w.src, 'ab', 'x'), 'x');
    await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
    await new Promise((r) => setTimeout(r, 1100));
    fs.writeFileSync(path.join(w.src, 'a*', 'x'), 'x2'); // only a* is vouched for now
    await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
    fs.rmSync(path.join(w.dst, 'ab', 'x')); // a job's deletion in ab
    const out = await w.check();
    assert.ok(!out.includes('./a*\0D\0'), 'a* was listed whole');
    assert.ok(out.includes('./ab\0D\0'), 'ab was taken as vouched for by the a* record');
    const s = await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
    assert.equal(s.files, 1);
    assert.equal(fs.readFileSync(path.join(w.dst, 'ab', 'x'), 'utf8'), 'x');
    fs.rmSync(w.root, { recursive: true, force: true });
  });
});
