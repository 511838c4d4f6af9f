// Manifest syncs against this machine (the local transport runs the real node-side Python):
// what is sent after an edit, a delete, a rename, a touch, a job's edit on the node, a sync that
// died half-way, and tampered manifests on either side.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { syncWorkdir, type SyncState } from '../../../src/core/ops/syncFiles';
import { createLocalTransport } from '../../../src/core/transport/localTransport';
import { manifestFile } from '../../../src/core/sync/manifestStore';
import type { Transport } from '../../../src/core/transport';

const python = 'python3';

function setup(files: Record<string, string>): { src: string; dst: string; state: SyncState; t: Transport; localFile: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-msync-'));
  const src = path.join(root, 'src');
  const dst = path.join(root, 'node', 'sky_workdir');
  for (const [rel, body] of Object.entries(files)) write(src, rel, body);
  const state = { nodeStateDir: path.join(root, 'node', 'base', 'sync'), localStateDir: path.join(root, 'ws', '.skydeck', 'sync') };
  const t = createLocalTransport();
  return { src, dst, state, t, localFile: manifestFile(state.localStateDir, t.description, dst, src) };
}

function write(root: string, rel: string, body: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), body);
}

function files(root: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) Object.assign(out, files(root, r), { [`${r}/`]: '' });
    else out[r] = fs.readFileSync(path.join(root, r), 'utf8');
  }
  return out;
}

/** Moves a file's mtime so a same-second edit is still seen (tests write fast). */
function age(root: string, rel: string, secondsAgo: number): void {
  const t = Date.now() / 1000 - secondsAgo;
  fs.utimesSync(path.join(root, rel), t, t);
}

describe('manifest sync (only what changed)', function () {
  // Several real syncs per test (~1 s each here, 5 s at a load of 12 on 2 cores).
  this.timeout(90_000);
  it('sends everything first, then one edited file, and propagates deletes and renames', async () => {
    const w = setup({ 'a.py': 'a', 'b.py': 'b', 'sub/c.txt': 'c', 'sub/deep/d.txt': 'd', '.gitignore': 'out/\n', 'out/x': 'ignored' });
    const first = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.equal(first.mode, 'full');
    assert.equal(first.files, 5);
    const expected = files(w.src);
    delete expected['out/'];
    delete expected['out/x'];
    assert.deepEqual(files(w.dst), expected);

    write(w.src, 'a.py', 'a2-longer');
    const edit = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.deepEqual([edit.mode, edit.files, edit.bytes, edit.removed], ['delta', 1, 9, 0]);
    assert.equal(fs.readFileSync(path.join(w.dst, 'a.py'), 'utf8'), 'a2-longer');

    fs.rmSync(path.join(w.src, 'sub'), { recursive: true });
    fs.renameSync(path.join(w.src, 'b.py'), path.join(w.src, 'b2.py'));
    const del = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.deepEqual([del.mode, del.files, del.removed], ['delta', 1, 5]); // b.py, sub/, sub/c.txt, sub/deep/, sub/deep/d.txt
    assert.deepEqual(Object.keys(files(w.dst)).sort(), ['.gitignore', 'a.py', 'b2.py']);

    const none = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.deepEqual([none.mode, none.files, none.removed], ['delta', 0, 0]);
  });

  it('a touched file (same content, new mtime) is not sent; the node gets its time', async () => {
    const w = setup({ 'a.py': 'same' });
    age(w.src, 'a.py', 100);
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    age(w.src, 'a.py', 10);
    const s = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.deepEqual([s.mode, s.files], ['delta', 0]);
    assert.equal(Math.floor(fs.statSync(path.join(w.dst, 'a.py')).mtimeMs / 1000), Math.floor(fs.statSync(path.join(w.src, 'a.py')).mtimeMs / 1000));
    // A same-size edit with a new mtime is sent (the hash differs).
    write(w.src, 'a.py', 'diff');
    const e = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.deepEqual([e.mode, e.files], ['delta', 1]);
    assert.equal(fs.readFileSync(path.join(w.dst, 'a.py'), 'utf8'), 'diff');
  });

  it('a file a job changed or removed on the node is sent again (drift)', async () => {
    const w = setup({ 'a.py': 'a', 'b.py': 'b', 'c.py': 'c' });
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    fs.writeFileSync(path.join(w.dst, 'a.py'), 'job wrote this');
    fs.rmSync(path.join(w.dst, 'b.py'));
    const s = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.deepEqual([s.mode, s.files], ['delta', 2]);
    assert.deepEqual(files(w.dst), { 'a.py': 'a', 'b.py': 'b', 'c.py': 'c' });
  });

  it('a sync that fails half-way on the node leaves no manifest there: the next one is full and correct', async () => {
    const w = setup({ 'a.py': 'a', 'd/x': 'x' });
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    // Locally d/ becomes a file; on the node a job left a file in d/, so d/ cannot be replaced.
    fs.rmSync(path.join(w.src, 'd'), { recursive: true });
    write(w.src, 'd', 'now a file');
    write(w.src, 'a.py', 'a2');
    write(w.dst, 'd/job-output', 'kept');
    await assert.rejects(syncWorkdir(w.t, python, w.src, w.dst, w.state), /cannot replace directory/);
    assert.deepEqual(fs.readdirSync(w.state.nodeStateDir).filter((n) => n.endsWith('.json')), [], 'the node kept a manifest of a sync that did not finish');
    fs.rmSync(path.join(w.dst, 'd'), { recursive: true });
    const s = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.equal(s.mode, 'full');
    assert.deepEqual(files(w.dst), { 'a.py': 'a2', d: 'now a file' });
  });

  it('an upload cut off mid-stream changes neither manifest, and the next delta is still right', async () => {
    const w = setup({ 'a.py': 'a', 'big.bin': 'x'.repeat(4 << 20) });
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    const before = fs.readFileSync(w.localFile);
    write(w.src, 'big.bin', 'y'.repeat(5 << 20));
    write(w.src, 'a.py', 'a2');
    const cut: Transport = Object.assign(Object.create(w.t) as Transport, {
      execShell: (script: string, opts: Parameters<Transport['execShell']>[1] = {}) => {
        if (!opts.stdin || !script.includes('apply')) return w.t.execShell(script, opts);
        const src = opts.stdin as NodeJS.ReadableStream & { destroy(e?: Error): void };
        let n = 0;
        src.on('data', (b: Buffer) => { if ((n += b.length) > 1 << 20) src.destroy(new Error('connection lost')); });
        return w.t.execShell(script, opts);
      },
    });
    await assert.rejects(syncWorkdir(cut, python, w.src, w.dst, w.state));
    assert.deepEqual(fs.readFileSync(w.localFile), before, 'the local manifest moved for a sync that did not finish');
    const s = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.deepEqual([s.mode, s.files], ['delta', 2]);
    assert.equal(fs.readFileSync(path.join(w.dst, 'big.bin'), 'utf8').length, 5 << 20);
    assert.equal(fs.readFileSync(path.join(w.dst, 'a.py'), 'utf8'), 'a2');
  });

  it('a tampered local manifest never deletes on the node: it no longer matches, so the sync is full', async () => {
    const w = setup({ 'a.py': 'a' });
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    write(w.dst, 'precious.txt', 'not from the workdir');
    const doc = JSON.parse(fs.readFileSync(w.localFile, 'utf8'));
    doc.entries.push({ p: 'precious.txt', t: 'f', s: 20, m: 1, x: 0o644, h: '' });
    fs.writeFileSync(w.localFile, JSON.stringify(doc));
    const s = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.equal(s.mode, 'full');
    assert.equal(fs.readFileSync(path.join(w.dst, 'precious.txt'), 'utf8'), 'not from the workdir');

    for (const bad of ['../../outside', '/etc/passwd', 'a/../../x', 'a\\..\\x']) {
      const d = JSON.parse(fs.readFileSync(w.localFile, 'utf8'));
      d.entries.push({ p: bad, t: 'f', s: 1, m: 1, x: 0o644, h: '' });
      fs.writeFileSync(w.localFile, JSON.stringify(d));
      assert.equal((await syncWorkdir(w.t, python, w.src, w.dst, w.state)).mode, 'full', bad);
    }
    for (const junk of ['{', '[]', '{"v":1,"entries":{}}', '\u0000'.repeat(10)]) {
      fs.writeFileSync(w.localFile, junk);
      assert.equal((await syncWorkdir(w.t, python, w.src, w.dst, w.state)).mode, 'full', junk);
    }
  });

  it('a local manifest left stale or torn (it is not fsynced: a power cut) means a full sync that leaves the node right', async function () {
    this.timeout(240_000); // seven syncs, on a loaded machine
    const w = setup({ 'a.py': 'a', 'b.py': 'b', 'd/c.py': 'c' });
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    const stale = fs.readFileSync(w.localFile);
    write(w.src, 'a.py', 'a2');
    age(w.src, 'a.py', -5);
    fs.rmSync(path.join(w.src, 'b.py'));
    assert.equal((await syncWorkdir(w.t, python, w.src, w.dst, w.state)).mode, 'delta');
    // The rename of the new manifest never reached the disk: the last sync's one is back.
    fs.writeFileSync(w.localFile, stale);
    write(w.src, 'd/c.py', 'c2');
    age(w.src, 'd/c.py', -5);
    assert.equal((await syncWorkdir(w.t, python, w.src, w.dst, w.state)).mode, 'full');
    assert.deepEqual(files(w.dst), files(w.src));
    // Cut half-way.
    const whole = fs.readFileSync(w.localFile);
    fs.writeFileSync(w.localFile, whole.subarray(0, Math.floor(whole.length / 2)));
    assert.equal((await syncWorkdir(w.t, python, w.src, w.dst, w.state)).mode, 'full');
    assert.equal((await syncWorkdir(w.t, python, w.src, w.dst, w.state)).mode, 'delta');
    // A link planted at the temp file's name is replaced, never written through.
    const target = path.join(path.dirname(w.src), 'elsewhere.txt');
    fs.writeFileSync(target, 'keep');
    fs.symlinkSync(target, path.join(path.dirname(w.localFile), `.${path.basename(w.localFile)}.tmp-${process.pid}`));
    write(w.src, 'a.py', 'a3');
    age(w.src, 'a.py', -10);
    assert.equal((await syncWorkdir(w.t, python, w.src, w.dst, w.state)).mode, 'delta');
    assert.equal(fs.readFileSync(target, 'utf8'), 'keep');
    assert.deepEqual(files(w.dst), files(w.src));
  });

  it('a tampered or missing node manifest means a full sync', async () => {
    const w = setup({ 'a.py': 'a' });
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    const [name] = fs.readdirSync(w.state.nodeStateDir).filter((n) => n.endsWith('.json'));
    fs.appendFileSync(path.join(w.state.nodeStateDir, name), ' ');
    assert.equal((await syncWorkdir(w.t, python, w.src, w.dst, w.state)).mode, 'full');
    assert.equal((await syncWorkdir(w.t, python, w.src, w.dst, w.state)).mode, 'delta');
    fs.rmSync(path.join(w.state.nodeStateDir, name));
    assert.equal((await syncWorkdir(w.t, python, w.src, w.dst, w.state)).mode, 'full');
  });

  it('names with quotes, $(), spaces and newlines sync, change and delete', async () => {
    const odd = ["it's $(touch pwned) `x`.py", 'new\nline.txt', 'sp ace/ü.txt'];
    const w = setup(Object.fromEntries(odd.map((n) => [n, n])));
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    write(w.src, odd[0], 'changed!');
    fs.rmSync(path.join(w.src, odd[1]));
    const s = await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.deepEqual([s.mode, s.files, s.removed], ['delta', 1, 1]);
    assert.deepEqual(files(w.dst), { [odd[0]]: 'changed!', 'sp ace/': '', 'sp ace/ü.txt': odd[2] });
    assert.equal(fs.existsSync(path.join(w.dst, 'pwned')), false);
  });

  it('joins syncs of the same tree under way; a different tree to the same place is its own sync, and the node ends whole', async () => {
    const w = setup({ 'a.py': 'a', 'b.py': 'b' });
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    write(w.src, 'a.py', 'a2');
    const [x, y] = [syncWorkdir(w.t, python, w.src, w.dst, w.state), syncWorkdir(w.t, python, w.src, w.dst, w.state)];
    assert.equal(await x, await y, 'the second sync of the same content joins the first (one result object)');
    assert.deepEqual([(await x).mode, (await x).files], ['delta', 1]);

    // Two different trees raced to one place: each finishes (one may fall back to a full sync
    // when the other moved the node's manifest first); the node holds one of them, whole.
    const other = setup({});
    fs.cpSync(w.src, other.src, { recursive: true });
    write(other.src, 'b.py', 'b-other');
    const both = await Promise.all([syncWorkdir(w.t, python, w.src, w.dst, w.state), syncWorkdir(w.t, python, other.src, w.dst, w.state)]);
    assert.ok(both.every((s) => ['delta', 'full'].includes(s.mode)));
    const there = files(w.dst);
    assert.ok([files(w.src), files(other.src)].some((f) => JSON.stringify(f) === JSON.stringify(there)), JSON.stringify(there));
    // Whatever the order was, the next sync of the first tree leaves exactly it there.
    write(w.src, 'c.py', 'c');
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    assert.deepEqual(files(w.dst), files(w.src));
  });

  it('a workdir that vanished fails with the scan\'s error, and the node question asked meanwhile leaves no stray rejection', async () => {
    const w = setup({ 'a.py': 'a' });
    await syncWorkdir(w.t, python, w.src, w.dst, w.state);
    const stray: unknown[] = [];
    const onStray = (e: unknown) => stray.push(e);
    process.on('unhandledRejection', onStray);
    try {
      fs.rmSync(w.src, { recursive: true });
      await assert.rejects(syncWorkdir(w.t, python, w.src, w.dst, w.state), /ENOENT/);
      await new Promise((r) => setTimeout(r, 1500)); // the node check finishes after the scan failed
      assert.deepEqual(stray, []);
    } finally {
      process.off('unhandledRejection', onStray);
    }
  });
});
