import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IgnoreRules } from '../../../src/core/sync/ignoreRules';
import { archiveDirectory } from '../../../src/core/sync/workdirArchive';

function tree(root: string, files: Record<string, string>): void {
  for (const [rel, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), body);
  }
}

function listFiles(root: string, rel = ''): string[] {
  return fs.readdirSync(path.join(root, rel), { withFileTypes: true }).flatMap((d) => {
    const r = rel ? `${rel}/${d.name}` : d.name;
    return d.isDirectory() ? listFiles(root, r) : [r];
  }).sort();
}

async function extract(src: string): Promise<string> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-untar-'));
  const tar = spawn('tar', ['-xf', '-', '-C', out], { stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  tar.stderr.on('data', (d) => (err += d));
  archiveDirectory(src).pipe(tar.stdin);
  const code = await new Promise((r) => tar.on('close', r));
  assert.equal(code, 0, err);
  return out;
}

describe('workdir sync archive', () => {
  it('honours .gitignore files at every level, negation and directory-only rules', async () => {
    const src = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-wd-'));
    tree(src, {
      '.gitignore': '*.log\n!keep.log\nbuild/\n/top-only.txt\n# comment\n\ndata/**/*.bin\n',
      'train.py': 'print(1)\n',
      'a.log': 'x', 'keep.log': 'kept', 'top-only.txt': 'x', 'sub/top-only.txt': 'kept',
      'build/out.o': 'x', 'sub/build/x': 'x', 'data/a/b/c.bin': 'x', 'data/a/b/c.txt': 'kept',
      'sub/.gitignore': 'secret.txt\n', 'sub/secret.txt': 'x', 'secret.txt': 'kept at root',
    });
    const out = await extract(src);
    assert.deepEqual(listFiles(out), [
      '.gitignore', 'data/a/b/c.txt', 'keep.log', 'secret.txt', 'sub/.gitignore', 'sub/top-only.txt', 'train.py',
    ]);
    assert.equal(fs.readFileSync(path.join(out, 'secret.txt'), 'utf8'), 'kept at root');
  });

  it('uses .skyignore instead of .gitignore when the root has one', async () => {
    const src = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-wd-'));
    tree(src, { '.skyignore': 'big/\n', '.gitignore': '*.py\n', 'a.py': '1', 'big/w.bin': 'x' });
    assert.deepEqual(listFiles(await extract(src)), ['.gitignore', '.skyignore', 'a.py']);
  });

  it('keeps long and unicode names, modes, symlinks and exact bytes', async () => {
    const src = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-wd-'));
    const long = `${'d'.repeat(60)}/${'e'.repeat(70)}/${'f'.repeat(90)}.txt`;
    const bin = Buffer.from(Array.from({ length: 70_001 }, (_, i) => (i * 7) % 256));
    tree(src, { [long]: 'deep', 'ünï cødé $(x) `y` "q".txt': 'u' });
    fs.writeFileSync(path.join(src, 'blob.bin'), bin);
    fs.writeFileSync(path.join(src, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    fs.symlinkSync('blob.bin', path.join(src, 'link'));
    const out = await extract(src);
    assert.equal(fs.readFileSync(path.join(out, long), 'utf8'), 'deep');
    assert.equal(fs.readFileSync(path.join(out, 'ünï cødé $(x) `y` "q".txt'), 'utf8'), 'u');
    assert.deepEqual(fs.readFileSync(path.join(out, 'blob.bin')), bin);
    assert.equal(fs.statSync(path.join(out, 'run.sh')).mode & 0o777, 0o755);
    assert.equal(fs.readlinkSync(path.join(out, 'link')), 'blob.bin');
  });

  it('matches gitignore globs like git does', () => {
    const r = new IgnoreRules();
    r.add('', 'docs/*.md\n**/tmp\n?.c\n[ab].h\n');
    assert.equal(r.ignores('docs/x.md', false), true);
    assert.equal(r.ignores('docs/sub/x.md', false), false);
    assert.equal(r.ignores('a/b/tmp', true), true);
    assert.equal(r.ignores('x.c', false), true);
    assert.equal(r.ignores('xy.c', false), false);
    assert.equal(r.ignores('b.h', false), true);
    assert.equal(r.ignores('c.h', false), false);
  });
});
