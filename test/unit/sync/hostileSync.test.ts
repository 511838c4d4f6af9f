// A hostile user against the workdir re-sync: type swaps, same-tick edits, odd names, pruned
// dirs with glob names, links out of the tree. Each case ends with the node's workdir compared
// to the local tree (the invariant after a sync that reports success).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { syncWorkdir, type SyncState } from '../../../src/core/ops/syncFiles';
import { createLocalTransport } from '../../../src/core/transport/localTransport';
import type { Transport } from '../../../src/core/transport';

const python = 'python3';

function setup(files: Record<string, string>): { root: string; src: string; dst: string; state: SyncState; t: Transport } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-hostile-'));
  const src = path.join(root, 'src');
  const dst = path.join(root, 'node', 'sky_workdir');
  fs.mkdirSync(src, { recursive: true });
  for (const [rel, body] of Object.entries(files)) write(src, rel, body);
  const state = { nodeStateDir: path.join(root, 'node', 'base', 'sync'), localStateDir: path.join(root, 'ws', '.skydeck', 'sync') };
  return { root, src, dst, state, t: createLocalTransport() };
}

function write(root: string, rel: string, body: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), body);
}

/** Every entry below `root`: files with their text, links with their target, dirs as "/". */
function tree(root: string, skip: (rel: string) => boolean = () => false, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (skip(r)) continue;
    if (d.isSymbolicLink()) out[r] = `-> ${fs.readlinkSync(path.join(root, r))}`;
    else if (d.isDirectory()) Object.assign(out, { [`${r}/`]: '' }, tree(root, skip, r));
    else out[r] = fs.readFileSync(path.join(root, r), 'utf8');
  }
  return out;
}

async function sync(w: ReturnType<typeof setup>, localDir = w.src) {
  return syncWorkdir(w.t, python, localDir, w.dst, w.state);
}

describe('hostile workdir re-sync', () => {
  it('a directory replaced by a file (and by a link) locally reaches the node', async () => {
    const w = setup({ 'a/x': 'x', 'b/y': 'y', keep: 'k' });
    await sync(w);
    fs.rmSync(path.join(w.src, 'a'), { recursive: true });
    write(w.src, 'a', 'now a file');
    fs.rmSync(path.join(w.src, 'b'), { recursive: true });
    fs.symlinkSync('keep', path.join(w.src, 'b'));
    await sync(w);
    assert.deepEqual(tree(w.dst), tree(w.src));
  });

  it('a file replaced by a directory locally reaches the node', async () => {
    const w = setup({ a: 'file', keep: 'k' });
    await sync(w);
    fs.rmSync(path.join(w.src, 'a'));
    write(w.src, 'a/x', 'x');
    await sync(w);
    assert.deepEqual(tree(w.dst), tree(w.src));
  });

  it('an edit of the same size in the same clock tick as the last sync (same mtime) is sent', async () => {
    const w = setup({ 'a.py': 'AAAA' });
    const t = new Date();
    fs.utimesSync(path.join(w.src, 'a.py'), t, t);
    await sync(w);
    write(w.src, 'a.py', 'BBBB');
    fs.utimesSync(path.join(w.src, 'a.py'), t, t); // a coarse file-system clock: the tick did not move
    await sync(w);
    assert.equal(fs.readFileSync(path.join(w.dst, 'a.py'), 'utf8'), 'BBBB');
  });

  it('pruned dirs with glob, dash and backslash names prune only themselves', async () => {
    const names = ['[x]*?', '-name', 'a\\b', '*', 'x'];
    const files: Record<string, string> = { '.gitignore': '/\\[x\\]\\*\\?/\n/-name/\n' };
    for (const n of names) files[`${n}/f`] = n;
    const w = setup(files);
    await sync(w);
    await sync(w); // the second scan lists with find, pruning what the first pruned
    for (const n of names) write(w.src, `${n}/g`, 'new');
    await sync(w);
    assert.deepEqual(tree(w.dst), tree(w.src, (r) => r === '[x]*?' || r === '-name'));
  });

  it('a deleted file in a tree holding a backslash name is deleted on the node by a new process', async () => {
    const w = setup({ 'a\\b': 'odd', gone: 'g' });
    await sync(w);
    fs.rmSync(path.join(w.src, 'gone'));
    // A new CLI process: the manifest is read back from disk, not from this process's memory.
    const { readManifest, manifestFile } = await import('../../../src/core/sync/manifestStore');
    const file = manifestFile(w.state.localStateDir, w.t.description, w.dst, w.src);
    fs.copyFileSync(file, `${file}.x`);
    fs.renameSync(`${file}.x`, file);
    assert.ok(readManifest(file), 'the manifest is read back');
    await sync(w);
    assert.deepEqual(tree(w.dst), tree(w.src));
  });
});

describe('hostile workdir re-sync: roots, links, ignore files', () => {
  it('the local root named through a symlink or with a trailing slash is the same tree: deletions still reach the node', async () => {
    const w = setup({ keep: 'k', gone1: '1', gone2: '2' });
    const alias = path.join(w.root, 'alias');
    fs.symlinkSync(w.src, alias);
    await sync(w);
    fs.rmSync(path.join(w.src, 'gone1'));
    await sync(w, alias);
    assert.deepEqual(tree(w.dst), tree(w.src));
    fs.rmSync(path.join(w.src, 'gone2'));
    await sync(w, `${w.src}/`);
    assert.deepEqual(tree(w.dst), tree(w.src));
  });

  it('a job\'s link to outside the workdir, in place of a synced dir, is replaced and nothing outside is touched', async () => {
    const w = setup({ 'd/x': 'x', 'd/y': 'y', 'd/e/z': 'z' });
    await sync(w);
    const outside = path.join(w.root, 'outside');
    write(outside, 'x', 'outside x');
    write(outside, 'y', 'outside y');
    write(outside, 'e/z', 'outside z');
    fs.rmSync(path.join(w.dst, 'd'), { recursive: true });
    fs.symlinkSync(outside, path.join(w.dst, 'd'));
    fs.rmSync(path.join(w.src, 'd/y'));
    fs.rmSync(path.join(w.src, 'd/e'), { recursive: true });
    write(w.src, 'd/x', 'x2');
    await sync(w);
    assert.deepEqual(tree(w.dst), tree(w.src));
    assert.deepEqual(tree(outside), { x: 'outside x', y: 'outside y', 'e/': '', 'e/z': 'outside z' });
  });

  it('.skyignore appearing and disappearing after a pruned scan changes what is synced', async () => {
    const w = setup({ '.gitignore': 'build/\n', 'build/out': 'o', 'src/a': 'a', 'cache/c': 'c' });
    await sync(w);
    await sync(w);
    write(w.src, '.skyignore', 'cache/\n');
    await sync(w);
    assert.deepEqual(tree(w.dst), tree(w.src, (r) => r === 'cache'));
    fs.rmSync(path.join(w.src, '.skyignore'));
    write(w.src, 'build/out2', 'o2');
    await sync(w);
    await sync(w);
    const want = tree(w.src, (r) => r === 'build' || r === '.skyignore');
    assert.deepEqual(tree(w.dst, (r) => r === 'build' || r === '.skyignore'), want);
  });

  it('an ignore file that is a directory (or a link to one) means no rules, as git reads it', async () => {
    const w = setup({ 'a/.gitignore/x': 'a dir named .gitignore', 'a/f': 'f' });
    fs.symlinkSync('a', path.join(w.src, '.gitignore'));
    await sync(w);
    assert.deepEqual(tree(w.dst), tree(w.src));
  });
});

describe('hostile workdir re-sync: killed between the node and the local manifest', () => {
  it('a sync that finished on the node but was killed before its manifest was put in place still lets the next sync delete', async () => {
    const { manifestFile } = await import('../../../src/core/sync/manifestStore');
    const w = setup({ a: 'a', gone: 'g' });
    await sync(w);
    const file = manifestFile(w.state.localStateDir, w.t.description, w.dst, w.src);
    const before = fs.readFileSync(file);
    write(w.src, 'a', 'a2');
    await sync(w);
    // As if killed after the node said 0 but before the rename: the staged manifest is left
    // beside the old one, which is still in place.
    const staged = path.join(path.dirname(file), `.${path.basename(file)}.tmp-999999-1`);
    fs.renameSync(file, staged);
    fs.writeFileSync(`${file}.x`, before);
    fs.renameSync(`${file}.x`, file);
    fs.rmSync(path.join(w.src, 'gone'));
    await sync(w);
    assert.deepEqual(tree(w.dst), tree(w.src));
  });
  it('a forged staged manifest (one the node\'s token does not name) deletes nothing on the node', async () => {
    const { manifestFile } = await import('../../../src/core/sync/manifestStore');
    const w = setup({ a: 'a' });
    await sync(w);
    write(w.dst, 'job-out', 'a job wrote this');
    const file = manifestFile(w.state.localStateDir, w.t.description, w.dst, w.src);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { v: 1; entries: { p: string }[] };
    doc.entries.push({ ...doc.entries[0], p: 'job-out' });
    fs.writeFileSync(path.join(path.dirname(file), `.${path.basename(file)}.tmp-999999-1`), JSON.stringify(doc));
    write(w.src, 'a', 'a2');
    await sync(w);
    assert.equal(fs.readFileSync(path.join(w.dst, 'job-out'), 'utf8'), 'a job wrote this');
    assert.equal(fs.readFileSync(path.join(w.dst, 'a'), 'utf8'), 'a2');
  });
});

describe('hostile workdir re-sync: a job\'s write in the same second as the synced mtime', () => {
  const busybox = () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bbfind-'));
    fs.writeFileSync(path.join(bin, 'find'), '#!/bin/sh\necho "find: unrecognized: -printf" >&2\nexit 1\n', { mode: 0o755 });
    return { ...process.env, PATH: `${bin}:${process.env.PATH}` };
  };
  for (const [label, env] of [['GNU find', undefined], ['Python lister', busybox()]] as const) {
    it(`${label}: a same-size job write whose mtime has the synced whole second is resent`, async () => {
      const w = { ...setup({ 'a.py': 'AAAA' }) };
      w.t = createLocalTransport(env ? { env } : {});
      const sec = Math.floor(Date.now() / 1000) - 50;
      fs.utimesSync(path.join(w.src, 'a.py'), sec + 0.2, sec + 0.2);
      await sync(w);
      // The job writes 0.5 s into the second the sync set (tar keeps whole seconds).
      fs.writeFileSync(path.join(w.dst, 'a.py'), 'JJJJ');
      fs.utimesSync(path.join(w.dst, 'a.py'), sec + 0.5, sec + 0.5);
      const s = await sync(w);
      assert.equal(s.mode, 'delta');
      assert.equal(fs.readFileSync(path.join(w.dst, 'a.py'), 'utf8'), 'AAAA');
    });
  }
});

describe('hostile workdir re-sync: an ignore file that is a fifo', () => {
  it('is not read (a read would wait for a writer forever), in the file-system walk and in the listing\'s', async function () {
    this.timeout(120_000);
    const w = setup({ a: 'a', 'sub/b': 'b' });
    const { execFileSync, spawn } = await import('node:child_process');
    for (const f of ['.gitignore', 'sub/.gitignore']) execFileSync('mkfifo', [path.join(w.src, f)]);
    // Unblocks a read that should not have happened, after long enough to tell.
    const HOLD = 20;
    const writer = spawn('sh', ['-c', `sleep ${HOLD}; for f in "$@"; do : > "$f"; done; sleep 1; for f in "$@"; do : > "$f"; done`, 'sh',
      path.join(w.src, '.gitignore'), path.join(w.src, 'sub/.gitignore')], { stdio: 'ignore', detached: true });
    try {
      const t0 = Date.now();
      await sync(w);
      write(w.src, 'a', 'a2');
      await sync(w); // a listing this time (the first walk is remembered)
      assert.ok(Date.now() - t0 < HOLD * 1000, 'an ignore fifo was read');
      assert.deepEqual(tree(w.dst), tree(w.src, (r) => r.endsWith('.gitignore')));
    } finally {
      process.kill(-writer.pid!); // its group: the sh and its sleep
    }
  });
});

describe('hostile workdir re-sync: two syncs whose local commits land in the other order', () => {
  it('the manifest left in place (or beside it) still names what the node holds: the next sync deletes', async () => {
    const w = setup({ a: 'a', gone: 'g' });
    await sync(w);
    // Sync A finishes on the node, but its process is slow to put its manifest in place.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let appliedA!: () => void;
    const applied = new Promise<void>((r) => (appliedA = r));
    const slow: Transport = Object.assign(Object.create(w.t) as Transport, {
      execShell: async (script: string, opts?: Parameters<Transport['execShell']>[1]) => {
        const res = await w.t.execShell(script, opts);
        if (script.includes(' apply ')) {
          appliedA();
          await gate;
        }
        return res;
      },
    });
    write(w.src, 'a', 'A');
    const a = syncWorkdir(slow, python, w.src, w.dst, w.state);
    await applied;
    // Sync B, from another process, starts and finishes meanwhile.
    write(w.src, 'a', 'B!');
    await sync(w);
    release();
    await a;
    fs.rmSync(path.join(w.src, 'gone'));
    await sync(w);
    assert.deepEqual(tree(w.dst), tree(w.src));
  });
});

describe('hostile workdir re-sync: staged manifests left behind', () => {
  it('an old one is removed by the next sync that commits; a recent one (a sync under way) stays', async () => {
    const { manifestFile } = await import('../../../src/core/sync/manifestStore');
    const w = setup({ a: 'a' });
    await sync(w);
    const file = manifestFile(w.state.localStateDir, w.t.description, w.dst, w.src);
    const old = path.join(path.dirname(file), `.${path.basename(file)}.tmp-999998-1`);
    const recent = path.join(path.dirname(file), `.${path.basename(file)}.tmp-999999-1`);
    fs.copyFileSync(file, old);
    fs.copyFileSync(file, recent);
    const hourAgo = new Date(Date.now() - 3600_000);
    fs.utimesSync(old, hourAgo, hourAgo);
    write(w.src, 'a', 'a2');
    await sync(w);
    assert.ok(!fs.existsSync(old), 'an old staged manifest was kept');
    assert.ok(fs.existsSync(recent), 'a recent staged manifest was removed');
  });
});
