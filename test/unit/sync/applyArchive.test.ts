// The node's apply reads the sync's tar itself (manifestNode.ts), without Python's tarfile:
// what it must refuse (a stream cut between two members, a member below a link the archive
// made) and what it must not import (tarfile, json: half its start-up on a one-file sync).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bodyPadding, END_OF_ARCHIVE, entryHeader } from '../../../src/core/sync/tarWriter';
import { MANIFEST_NODE_PY } from '../../../src/core/sync/manifestNode';
import { syncWorkdir } from '../../../src/core/ops/syncFiles';
import { python, syncTree } from './syncTree';

const TOKEN = 'b'.repeat(64);

function file(name: string, body: string, mode = 0o644): Buffer {
  const b = Buffer.from(body);
  return Buffer.concat([entryHeader({ path: name, type: 'file', mode, mtime: 1_700_000_000, size: b.length }), b, bodyPadding(b.length)]);
}

const dir = (name: string) => entryHeader({ path: name, type: 'dir', mode: 0o755, mtime: 1_700_000_000 });

/** meta/ops and the old meta/ops.json both: an apply of either format reads its own. */
const meta = () => [dir('meta'), file('meta/ops', ''), file('meta/ops.json', '{"remove":[],"touch":[]}'), dir('tree')];

async function apply(w: ReturnType<typeof syncTree>, tar: Buffer[]): Promise<{ code: number | null; stderr: string }> {
  const state = path.join(w.state.nodeStateDir, 'x.json');
  const script = `exec ${python} -S -c '${MANIFEST_NODE_PY.replace(/'/g, `'\\''`)}' apply '${w.dst}' '${state}'`;
  const r = await w.t.execShell(script, { stdin: Buffer.concat([Buffer.from(`- ${TOKEN}\n`), ...tar]) });
  return { code: r.code, stderr: r.stderr.toString() };
}

describe('sync apply: the tar read on the node', () => {
  it('applies a whole archive: files with their mode and time, links, the token written', async () => {
    const w = syncTree({});
    const link = entryHeader({ path: 'tree/l', type: 'symlink', mode: 0o777, mtime: 1_700_000_000, linkTarget: 'a' });
    const long = `tree/${'n'.repeat(150)}`;
    const r = await apply(w, [...meta(), file('tree/a', 'hello', 0o750), link, file(long, 'long name'), END_OF_ARCHIVE]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fs.readFileSync(path.join(w.dst, 'a'), 'utf8'), 'hello');
    assert.equal(fs.statSync(path.join(w.dst, 'a')).mode & 0o7777, 0o750);
    assert.equal(fs.statSync(path.join(w.dst, 'a')).mtimeMs, 1_700_000_000_000);
    assert.equal(fs.readlinkSync(path.join(w.dst, 'l')), 'a');
    assert.equal(fs.readFileSync(path.join(w.dst, 'n'.repeat(150)), 'utf8'), 'long name');
    assert.equal(fs.readFileSync(path.join(w.state.nodeStateDir, 'x.json'), 'utf8'), TOKEN);
  });

  it('a stream cut between two members (no end-of-archive block) applies nothing and writes no token', async () => {
    const w = syncTree({});
    const r = await apply(w, [...meta(), file('tree/a', 'hello')]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /ended early/);
    assert.equal(fs.existsSync(path.join(w.dst, 'a')), false);
    assert.equal(fs.existsSync(path.join(w.state.nodeStateDir, 'x.json')), false);
    assert.deepEqual(fs.readdirSync(w.dst), [], 'the temp dir is removed');
  });

  it('a member below a link the archive made is refused: nothing is written through it', async () => {
    const w = syncTree({});
    const outside = path.join(w.root, 'outside');
    fs.mkdirSync(outside);
    const link = entryHeader({ path: 'tree/l', type: 'symlink', mode: 0o777, mtime: 1_700_000_000, linkTarget: outside });
    const r = await apply(w, [...meta(), link, file('tree/l/evil', 'x'), END_OF_ARCHIVE]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /below a link/);
    assert.deepEqual(fs.readdirSync(outside), []);
    assert.equal(fs.existsSync(path.join(w.state.nodeStateDir, 'x.json')), false);
  });

  it('a header with a wrong checksum, a name outside meta/ and tree/, or a pax record of length 0 is refused', async () => {
    for (const bad of [
      (() => { const b = file('tree/a', 'x'); b[0] = 'u'.charCodeAt(0); return b; })(),
      file('other/a', 'x'),
      file('tree/../a', 'x'),
      // A pax record whose length says 0 (it would be read forever).
      (() => { const b = file(`tree/${'n'.repeat(150)}`, 'x'); b.write('000', 512, 'latin1'); return b; })(),
    ]) {
      const w = syncTree({});
      const r = await apply(w, [...meta(), bad, END_OF_ARCHIVE]);
      assert.notEqual(r.code, 0);
      assert.equal(fs.existsSync(path.join(w.state.nodeStateDir, 'x.json')), false);
    }
  });

  it('imports neither tarfile nor json: a sync works with both unimportable', async () => {
    const w = syncTree({ 'a/x': 'x', 'b/y': 'y', keep: 'k' });
    const poison = path.join(w.root, 'poison');
    fs.mkdirSync(poison);
    for (const m of ['tarfile', 'json', 'shutil', 'tempfile']) fs.writeFileSync(path.join(poison, `${m}.py`), `raise ImportError('${m} imported')\n`);
    const py = path.join(w.root, 'py');
    fs.writeFileSync(py, `#!/bin/sh\nPYTHONPATH='${poison}' exec ${python} "$@"\n`, { mode: 0o755 });
    assert.equal((await syncWorkdir(w.t, py, w.src, w.dst, w.state)).mode, 'full');
    fs.writeFileSync(path.join(w.src, 'a', 'x'), 'edited');
    fs.rmSync(path.join(w.src, 'b'), { recursive: true });
    fs.utimesSync(path.join(w.src, 'keep'), new Date(1_600_000_000_000), new Date(1_600_000_000_000));
    const r = await syncWorkdir(w.t, py, w.src, w.dst, w.state);
    assert.equal(r.mode, 'delta');
    assert.equal(fs.readFileSync(path.join(w.dst, 'a', 'x'), 'utf8'), 'edited');
    assert.equal(fs.existsSync(path.join(w.dst, 'b')), false);
    assert.equal(fs.statSync(path.join(w.dst, 'keep')).mtimeMs, 1_600_000_000_000);
  });
});
