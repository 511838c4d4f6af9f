import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LocalTransport, type SshTransport } from '../../../src/core/transport';
import type { TestHost } from '../../hosts';
import { setup, type Env } from './helpers';

/** "mode sha256 relative/path" per file, sorted: what must match on both sides. */
function localManifest(root: string): string {
  const lines: string[] = [];
  const walk = (dir: string): void => {
    for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, ent.name);
      if (ent.isDirectory()) { lines.push(`d ${path.relative(root, p)}`); walk(p); continue; }
      const mode = (fs.statSync(p).mode & 0o777).toString(8);
      lines.push(`${mode} ${createHash('sha256').update(fs.readFileSync(p)).digest('hex')} ${path.relative(root, p)}`);
    }
  };
  walk(root);
  return lines.sort().join('\n');
}

async function remoteManifest(host: TestHost, dir: string): Promise<string> {
  // One pass each: types and modes, then hashes (names here have no newline or backslash).
  const r = await host.exec(`cd ${dir} && find . -mindepth 1 -printf '%y %m %P\\n' && echo -- && find . -type f -exec sha256sum {} +`);
  assert.equal(r.code, 0, r.stderr);
  const [listing, sums] = r.stdout.split('--\n');
  const hash = new Map(sums.trim().split('\n').map((l) => [l.slice(66).replace(/^\.\//, ''), l.slice(0, 64)]));
  return listing.trim().split('\n').map((l) => {
    const [type, mode, ...rest] = l.split(' ');
    const name = rest.join(' ');
    return type === 'd' ? `d ${name}` : `${mode} ${hash.get(name)} ${name}`;
  }).sort().join('\n');
}

function makeTree(root: string): void {
  fs.mkdirSync(path.join(root, 'sub dir', 'deeper'), { recursive: true });
  fs.mkdirSync(path.join(root, 'empty'));
  fs.writeFileSync(path.join(root, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  fs.writeFileSync(path.join(root, 'data.bin'), randomBytes(3 * 1024 * 1024));
  fs.writeFileSync(path.join(root, 'sub dir', "it's 日本.txt"), 'quote and unicode\n');
  fs.writeFileSync(path.join(root, 'sub dir', 'deeper', 'private.key'), 'secret\n', { mode: 0o600 });
  for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(root, 'sub dir', `f${i}.txt`), `file ${i}\n`);
}

describe('transport: upload', function () {
  this.timeout(60_000);
  let env: Env;
  let host: TestHost;
  let t: SshTransport;

  before(async () => {
    env = await setup(1);
    host = env.hosts[0];
    t = env.transport(host);
  });
  after(async () => { await env?.teardown(); });

  it('a file, to ~/ with missing parents: bytes and mode match', async () => {
    const src = path.join(env.tmp, 'agent.py');
    fs.writeFileSync(src, randomBytes(5 * 1024 * 1024), { mode: 0o750 });
    await t.upload(src, '~/.skydeck/agent/skydeck_agent.py');
    const r = await host.exec('stat -c %a ~/.skydeck/agent/skydeck_agent.py; sha256sum < ~/.skydeck/agent/skydeck_agent.py; ls -a ~/.skydeck/agent');
    const [mode, sum, ...ls] = r.stdout.trim().split('\n');
    assert.equal(mode, '750');
    assert.equal(sum.split(' ')[0], createHash('sha256').update(fs.readFileSync(src)).digest('hex'));
    assert.deepEqual(ls, ['.', '..', 'skydeck_agent.py'], 'temporary file left behind');
  });

  it('a file replaces an existing one (atomically, via rename)', async () => {
    const src = path.join(env.tmp, 'v2.txt');
    fs.writeFileSync(src, 'version 2\n');
    await host.exec('mkdir -p ~/x && echo old > ~/x/v.txt');
    await t.upload(src, `${host.home}/x/v.txt`);
    assert.equal((await host.exec('cat ~/x/v.txt')).stdout, 'version 2\n');
  });

  it('a directory tree: every file, mode and empty directory matches', async () => {
    const src = path.join(env.tmp, 'tree');
    makeTree(src);
    await t.upload(src, '~/deploy/tree');
    assert.equal(await remoteManifest(host, '~/deploy/tree'), localManifest(src));
    // Uploading again over it works (overwrite).
    fs.writeFileSync(path.join(src, 'run.sh'), '#!/bin/sh\necho v2\n');
    await t.upload(src, '~/deploy/tree');
    assert.equal(await remoteManifest(host, '~/deploy/tree'), localManifest(src));
  });

  it('the local transport uploads the same way', async () => {
    const local = new LocalTransport();
    const src = path.join(env.tmp, 'tree-local');
    makeTree(src);
    const dest = path.join(env.tmp, 'local-dest', 'a', 'tree');
    await local.upload(src, dest);
    assert.equal(localManifest(dest), localManifest(src));
    const file = path.join(env.tmp, 'local-dest', 'b', 'run.sh');
    await local.upload(path.join(src, 'run.sh'), file);
    assert.equal((fs.statSync(file).mode & 0o777).toString(8), '755');
  });
});
