// The listings behind a one-file sync: the local tree listed by find (then walked like the file
// system, skipping what the last walk pruned), and the node's directories listed by find or, on
// a node without GNU find, by Python. Each must say exactly what the file-system walk says.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scanWorkdir } from '../../../src/core/sync/manifest';
import { scanWorkdirFast } from '../../../src/core/sync/fastScan';
import { listTree } from '../../../src/core/sync/treeListing';
import { syncWorkdir } from '../../../src/core/ops/syncFiles';
import { createLocalTransport } from '../../../src/core/transport/localTransport';
import { manifestFile } from '../../../src/core/sync/manifestStore';
import { traceSink } from '../../../src/core/util/trace';

function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-listing-'));
  for (const [rel, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), body);
  }
  return root;
}

const odd = {
  'a.py': 'a', 'sub/b.txt': 'b', 'sub/deep/c': 'c', "q'uote $(x)/n\nl": 'n', 'sp ace/[x]*?': 'g',
  '.gitignore': 'build/\n*.log\n!keep.log\n', 'build/out.o': 'o', 'x.log': 'l', 'keep.log': 'k',
  'sub/.gitignore': 'cache/\n', 'sub/cache/big': 'z', 'node_modules/m/index.js': 'm',
};

describe('tree listings for the one-file sync', () => {
  it('find\'s listing walks to exactly the file system\'s entries (modes, links, mtimes to the ms fraction, ignores)', async () => {
    const root = tree(odd);
    fs.symlinkSync('sub/b.txt', path.join(root, 'link'));
    fs.symlinkSync('../nowhere', path.join(root, 'sub', 'dangling'));
    fs.chmodSync(path.join(root, 'a.py'), 0o4755);
    fs.chmodSync(path.join(root, 'sub'), 0o1777);
    let ignoredFs = 0;
    let ignoredList = 0;
    const want = scanWorkdir(root, '.skydeck-sync.*\n', new Map(), () => ignoredFs++);
    const view = await listTree(root, []);
    assert.ok(view, 'GNU find listed nothing');
    const got = scanWorkdir(root, '.skydeck-sync.*\n', new Map(), () => ignoredList++, view);
    assert.deepEqual(got, want);
    assert.equal(ignoredList, ignoredFs);
    assert.ok(want.some((e) => e.p === 'link' && e.t === 'l' && e.l === 'sub/b.txt'));
    assert.ok(!want.some((e) => e.p.startsWith('build') || e.p === 'x.log' || e.p.startsWith('sub/cache')));
  });

  it('the second scan skips what the first pruned, and a changed ignore file brings the skipped dirs back', async () => {
    const root = tree(odd);
    let ignored = 0;
    const first = await scanWorkdirFast(root, '', new Map(), () => ignored++);
    const firstIgnored = ignored;
    // Files in a pruned dir change: the listing does not enter it, the result is the same.
    fs.writeFileSync(path.join(root, 'build', 'new.o'), 'n');
    fs.writeFileSync(path.join(root, 'a.py'), 'edited');
    ignored = 0;
    const second = await scanWorkdirFast(root, '', new Map(), () => ignored++);
    assert.equal(ignored, firstIgnored);
    assert.deepEqual(second.map((e) => e.p), first.map((e) => e.p));
    assert.deepEqual(second, scanWorkdir(root, '', new Map()));
    // build/ is no longer ignored: its files must appear, though the listing skipped build/.
    fs.writeFileSync(path.join(root, '.gitignore'), '*.log\n');
    const third = await scanWorkdirFast(root, '', new Map());
    assert.ok(third.some((e) => e.p === 'build/new.o'), 'a dir un-ignored by an edited .gitignore stayed skipped');
    assert.deepEqual(third, scanWorkdir(root, '', new Map()));
    // A new nested ignore file is read too.
    fs.writeFileSync(path.join(root, 'sub', 'deep', '.gitignore'), 'c\n');
    assert.deepEqual(await scanWorkdirFast(root, '', new Map()), scanWorkdir(root, '', new Map()));
    assert.ok(!(await scanWorkdirFast(root, '', new Map())).some((e) => e.p === 'sub/deep/c'));
  });

  describe('files changed in place since the last scan (ctime)', () => {
    /** Runs a scan and says which way it went (the trace lines of fastScan.ts). */
    const scan = async (root: string) => {
      const lines: string[] = [];
      const write = traceSink.write;
      const env = process.env.SKYDECK_TRACE;
      process.env.SKYDECK_TRACE = '1';
      traceSink.write = (l) => void lines.push(l);
      try {
        const entries = await scanWorkdirFast(root, '', new Map());
        return { entries, inPlace: lines.some((l) => l.includes('only files changed in place')) };
      } finally {
        traceSink.write = write;
        if (env === undefined) delete process.env.SKYDECK_TRACE;
        else process.env.SKYDECK_TRACE = env;
      }
    };

    it('edits, chmods and same-second same-size rewrites are picked up without a listing', async () => {
      const root = tree(odd);
      await new Promise((r) => setTimeout(r, 300)); // the tree's own making is older than the slack
      await scan(root);
      fs.writeFileSync(path.join(root, 'a.py'), 'b'); // same size, same second, other content
      fs.appendFileSync(path.join(root, 'sub', 'deep', 'c'), 'more');
      fs.chmodSync(path.join(root, 'sub', 'b.txt'), 0o700);
      const s = await scan(root);
      assert.ok(s.inPlace, 'in-place edits were not taken from the last scan');
      assert.deepEqual(s.entries, scanWorkdir(root, '', new Map()));
      const a = s.entries.find((e) => e.p === 'a.py')!;
      assert.equal(a.m, fs.lstatSync(path.join(root, 'a.py')).mtimeMs);
    });

    it('a rewrite that keeps size and puts the old mtime back is still sent (its ctime moved)', async () => {
      const src = tree({ 'a.py': 'aaaa', 'b.py': 'b' });
      const old = Date.now() / 1000 - 3600;
      for (const f of ['a.py', 'b.py', '']) fs.utimesSync(path.join(src, f), old, old);
      await new Promise((r) => setTimeout(r, 300));
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-node-'));
      const dst = path.join(root, 'wd');
      const state = { nodeStateDir: path.join(root, 'base', 'sync'), localStateDir: path.join(root, 'ws', '.skydeck', 'sync') };
      const t = createLocalTransport();
      await syncWorkdir(t, 'python3', src, dst, state);
      await syncWorkdir(t, 'python3', src, dst, state);
      fs.writeFileSync(path.join(src, 'a.py'), 'AAAA');
      fs.utimesSync(path.join(src, 'a.py'), old, old);
      const s = await syncWorkdir(t, 'python3', src, dst, state);
      assert.deepEqual([s.mode, s.files], ['delta', 1]);
      assert.equal(fs.readFileSync(path.join(dst, 'a.py'), 'utf8'), 'AAAA');
    });

    for (const [what, change] of [
      ['a file removed at the root', (r: string) => fs.rmSync(path.join(r, 'a.py'))],
      ['a file made in a nested dir', (r: string) => fs.writeFileSync(path.join(r, 'sub', 'deep', 'new'), 'n')],
      ['a file renamed over another', (r: string) => fs.renameSync(path.join(r, 'keep.log'), path.join(r, 'sub', 'b.txt'))],
      ['an ignore file edited in place', (r: string) => fs.appendFileSync(path.join(r, '.gitignore'), 'sub/\n')],
      ['an ignored file appended to', (r: string) => fs.appendFileSync(path.join(r, 'x.log'), 'line')],
      ['a .skyignore made', (r: string) => fs.writeFileSync(path.join(r, '.skyignore'), 'a.py\n')],
    ] as const) {
      it(`${what}: the tree is listed again, and the result is the file system's`, async () => {
        const root = tree(odd);
        await new Promise((r) => setTimeout(r, 300));
        await scan(root);
        change(root);
        const s = await scan(root);
        assert.ok(!s.inPlace, `${what} was taken as an in-place edit`);
        assert.deepEqual(s.entries, scanWorkdir(root, '', new Map()));
      });
    }
  });

  describe('the node\'s listing', () => {
    const setup = (env?: NodeJS.ProcessEnv) => {
      const src = tree({ 'a.py': 'a', 'sub/b.py': 'b', 'sub/deep/c.py': 'c', "o'dd $(n)\nname": 'o' });
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-node-'));
      const dst = path.join(root, 'wd');
      const state = { nodeStateDir: path.join(root, 'base', 'sync'), localStateDir: path.join(root, 'ws', '.skydeck', 'sync') };
      const t = createLocalTransport(env ? { env } : {});
      return { src, dst, state, t, localFile: manifestFile(state.localStateDir, t.description, dst, src) };
    };

    // A node whose find has no -printf (busybox): the Python lister answers instead.
    const busyboxPath = () => {
      const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bbfind-'));
      fs.writeFileSync(path.join(bin, 'find'), '#!/bin/sh\necho "find: unrecognized: -printf" >&2\nexit 1\n', { mode: 0o755 });
      return { ...process.env, PATH: `${bin}:${process.env.PATH}` };
    };

    it('the apply started before the scan ends untouched when the scan fails: no node process is left waiting', async () => {
      const w = setup();
      await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
      fs.rmSync(w.src, { recursive: true });
      await assert.rejects(syncWorkdir(w.t, 'python3', w.src, w.dst, w.state), /ENOENT|no such file/i);
      const left = () => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(w.dst) && l.includes('apply'));
      for (let i = 0; i < 50 && left().length; i++) await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(left(), []);
      assert.ok(fs.existsSync(path.join(w.dst, 'a.py')), 'the node workdir was touched');
      assert.deepEqual(fs.readdirSync(w.dst).filter((n) => n.startsWith('.skydeck-sync.')), []);
    });

    for (const [label, env] of [['GNU find', undefined], ['Python, find without -printf', busyboxPath()]] as const) {
      it(`${label}: drifted files are resent, untouched ones are not, and a dir a job swapped for a link is resent whole`, async () => {
        const w = setup(env);
        await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
        assert.equal((await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state)).files, 0);
        fs.writeFileSync(path.join(w.dst, "o'dd $(n)\nname"), 'job');
        // A job replaces sub/ by a link to a copy that looks the same: nothing below it is trusted.
        const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-elsewhere-'));
        fs.cpSync(path.join(w.dst, 'sub'), elsewhere, { recursive: true, preserveTimestamps: true });
        fs.rmSync(path.join(w.dst, 'sub'), { recursive: true });
        fs.symlinkSync(elsewhere, path.join(w.dst, 'sub'));
        const s = await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
        assert.deepEqual([s.mode, s.files], ['delta', 3]);
        assert.ok(!fs.lstatSync(path.join(w.dst, 'sub')).isSymbolicLink());
        assert.equal(fs.readFileSync(path.join(w.dst, 'sub', 'deep', 'c.py'), 'utf8'), 'c');
        assert.equal(fs.readFileSync(path.join(w.dst, "o'dd $(n)\nname"), 'utf8'), 'o');
        assert.deepEqual(fs.readdirSync(path.dirname(w.localFile)).filter((n) => n.includes('.tmp-')), [], 'a staged manifest was left behind');
      });

      it(`${label}: a job's nested delete and nested edit are seen once the node answers "changed since"`, async () => {
        const w = setup(env);
        await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
        await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
        fs.rmSync(path.join(w.dst, 'sub', 'deep', 'c.py'));
        fs.writeFileSync(path.join(w.dst, 'sub', 'b.py'), 'job wrote more');
        const s = await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state);
        assert.deepEqual([s.mode, s.files], ['delta', 2]);
        assert.equal(fs.readFileSync(path.join(w.dst, 'sub', 'deep', 'c.py'), 'utf8'), 'c');
        assert.equal(fs.readFileSync(path.join(w.dst, 'sub', 'b.py'), 'utf8'), 'b');
        assert.equal((await syncWorkdir(w.t, 'python3', w.src, w.dst, w.state)).files, 0);
      });
    }
  });
});
