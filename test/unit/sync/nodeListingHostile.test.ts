// Hostile checks of the node's changed-since listing (nodeListing.ts): many dirs (xargs runs
// find several times), odd names, a job's changes in the first/middle/last dir.
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

describe('node listing, hostile', function () {
  // The Python fallback lists 1000 dirs three times: 20 s was not enough with both CI lanes busy.
  this.timeout(90_000);
  const busybox = () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bbfind-'));
    fs.writeFileSync(path.join(bin, 'find'), '#!/bin/sh\necho "find: unrecognized: -printf" >&2\nexit 1\n', { mode: 0o755 });
    return bin;
  };
  for (const label of ['GNU find', 'Python']) {
    it(`${label}: 1000 long-named dirs (xargs runs find 3 times) and odd names; job edits seen in every find run, no temp left`, async () => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-nlh-'));
      const src = path.join(root, 'src');
      const names: string[] = [];
      for (let i = 0; i < 1000; i++) names.push(`d${String(i).padStart(4, '0')}-${'x'.repeat(150)}`);
      names.push('-rf', '(', '!', 'a\nb', "q'$(touch pwned)");
      for (const n of names) {
        fs.mkdirSync(path.join(src, n, 'in'), { recursive: true });
        fs.writeFileSync(path.join(src, n, 'f'), 'f');
        fs.writeFileSync(path.join(src, n, 'u'), 'untouched: resent only if its dir listing was lost');
        fs.writeFileSync(path.join(src, n, 'in', 'g'), 'g');
      }
      const tmp = path.join(root, 'tmp');
      fs.mkdirSync(tmp);
      const env = { ...process.env, TMPDIR: tmp, ...(label === 'Python' ? { PATH: `${busybox()}:${process.env.PATH}` } : {}) };
      const t = createLocalTransport({ env });
      const dst = path.join(root, 'wd');
      const state = { nodeStateDir: path.join(root, 'base', 'sync'), localStateDir: path.join(root, 'ws', '.skydeck', 'sync') };
      await syncWorkdir(t, 'python3', src, dst, state);
      assert.equal((await syncWorkdir(t, 'python3', src, dst, state)).files, 0);
      await new Promise((r) => setTimeout(r, 1100));
      const pick = [names[0], names[500], names[999], '-rf', '(', '!', 'a\nb', "q'$(touch pwned)"];
      for (const n of pick) {
        fs.writeFileSync(path.join(dst, n, 'f'), 'job'); // a file edited
        fs.rmSync(path.join(dst, n, 'in', 'g')); // a nested delete
        fs.writeFileSync(path.join(dst, n, 'new'), 'job'); // a dir changed
      }
      const s = await syncWorkdir(t, 'python3', src, dst, state);
      assert.equal(s.mode, 'delta');
      for (const n of pick) {
        assert.equal(fs.readFileSync(path.join(dst, n, 'f'), 'utf8'), 'f', n);
        assert.equal(fs.readFileSync(path.join(dst, n, 'in', 'g'), 'utf8'), 'g', n);
      }
      assert.equal(s.files, pick.length * 2);
      assert.deepEqual(fs.readdirSync(tmp), [], 'a temp dir was left');
      assert.ok(!fs.existsSync(path.join(dst, 'pwned')));
      fs.rmSync(root, { recursive: true, force: true });
    });
  }

  it('GNU find: a dir the job made (20,000 outputs, say) is not listed whole: only the listed dirs that changed are', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-nlh-'));
    const src = path.join(root, 'src');
    fs.mkdirSync(path.join(src, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(src, 'a.py'), 'a');
    fs.writeFileSync(path.join(src, 'sub', 'b.py'), 'b');
    const t = createLocalTransport();
    const dst = path.join(root, 'wd');
    const state = { nodeStateDir: path.join(root, 'base', 'sync'), localStateDir: path.join(root, 'ws', '.skydeck', 'sync') };
    await syncWorkdir(t, 'python3', src, dst, state);
    await new Promise((r) => setTimeout(r, 1100));
    fs.mkdirSync(path.join(dst, 'outputs'));
    for (let i = 0; i < 500; i++) fs.writeFileSync(path.join(dst, 'outputs', `out-${i}.txt`), 'o');
    fs.writeFileSync(path.join(dst, 'sub', 'b.py'), 'job edit');
    const prev = readManifest(manifestFile(state.localStateDir, t.description, dst, src))!;
    const stateFile = path.join(state.nodeStateDir, `${sha256(dst).slice(0, 32)}.json`);
    const r = await t.execShell(nodeListScript('python3', shellQuote(dst), stateFile, manifestDigest(prev)), { stdin: listedDirs(prev) });
    assert.equal(r.code, 0, r.stderr.toString());
    const out = r.stdout.toString();
    assert.match(out, /^ok changed [0-9a-f]{16}\n/);
    assert.ok(!out.includes('out-1.txt'), `the job's own dir was listed whole: ${r.stdout.length} bytes`);
    assert.ok(r.stdout.length < 2000, `${r.stdout.length} bytes`);
    assert.ok(out.includes('./outputs\0'), 'the root changed: listed whole, the new dir with it');
    assert.ok(out.includes('./sub/b.py\0f\0'), 'the edited file');
    const s = await syncWorkdir(t, 'python3', src, dst, state);
    assert.deepEqual([s.mode, s.files], ['delta', 1]);
    assert.equal(fs.readFileSync(path.join(dst, 'sub', 'b.py'), 'utf8'), 'b');
    assert.equal(fs.readdirSync(path.join(dst, 'outputs')).length, 500, 'the job\'s outputs stay');
    fs.rmSync(root, { recursive: true, force: true });
  });
});

