// COPY against moto's S3 onto a real sshd test host: every object arrives byte for byte, only
// the named prefix is copied, and a relaunch's second copy changes nothing it need not.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { copyFromBucket, type NodeMount } from '../../../src/core/storage';
import { requireStorageTools, startStorageEnv, type StorageEnv } from './env';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** path → sha256 of every file under dir on the host (relative paths). */
async function hostTree(env: StorageEnv, dir: string): Promise<Map<string, string>> {
  const r = await env.hosts.hosts[0].exec(`cd ${dir} && find . -type f -print0 | xargs -0r sha256sum`);
  assert.equal(r.code, 0, r.stderr);
  const out = new Map<string, string>();
  for (const line of r.stdout.split('\n').filter(Boolean)) {
    const [hash, ...rest] = line.split('  ');
    out.set(rest.join('  ').replace(/^\.\//, ''), hash);
  }
  return out;
}

describe('storage: COPY from an S3 bucket (moto) onto a test host', function () {
  this.timeout(120_000);
  let env: StorageEnv;
  // Mixed sizes: empty, tiny, around rclone's buffer sizes, multi-MB; nested and odd names.
  const files: Record<string, Buffer> = {
    'empty.txt': Buffer.alloc(0),
    'one.bin': randomBytes(1),
    'a/b/c/deep.bin': randomBytes(70_000),
    'a/with space & quote\'.txt': Buffer.from('odd name\n'),
    'big/blob-5m.bin': randomBytes(5 * 1024 * 1024 + 17),
    'big/blob-1m.bin': randomBytes(1024 * 1024),
    'other/skip.txt': Buffer.from('not under the prefix'),
  };

  before(async function () {
    requireStorageTools(this);
    env = await startStorageEnv({ fuse: false });
    await env.s3.createBucket('copy-src');
    for (const [k, v] of Object.entries(files)) await env.s3.put('copy-src', k, v);
  });
  after(async () => { await env?.teardown(); });

  it('copies the whole bucket byte for byte, nested files of mixed sizes included', async () => {
    const m: NodeMount = { dst: '~/data', mode: 'COPY', target: { store: 's3', bucket: 'copy-src', prefix: '' } };
    await copyFromBucket(env.context(), m);
    const tree = await hostTree(env, '~/data');
    assert.deepEqual([...tree.keys()].sort(), Object.keys(files).sort());
    for (const [k, v] of Object.entries(files)) assert.equal(tree.get(k), sha(v), k);
  });

  it('copies only the prefix, as the root of the destination', async () => {
    const m: NodeMount = { dst: '~/only a', mode: 'COPY', target: { store: 's3', bucket: 'copy-src', prefix: 'a' } };
    await copyFromBucket(env.context(), m);
    const tree = await hostTree(env, "~/'only a'");
    assert.deepEqual([...tree.keys()].sort(), ['b/c/deep.bin', 'with space & quote\'.txt']);
    assert.equal(tree.get('b/c/deep.bin'), sha(files['a/b/c/deep.bin']));
  });

  it('an R2 bucket goes through the same S3 API (provider Cloudflare, path style)', async () => {
    const m: NodeMount = { dst: '~/r2', mode: 'COPY', target: { store: 'r2', bucket: 'copy-src', prefix: 'big' } };
    await copyFromBucket(env.context(), m);
    const tree = await hostTree(env, '~/r2');
    assert.deepEqual([...tree.keys()].sort(), ['blob-1m.bin', 'blob-5m.bin']);
    assert.equal(tree.get('blob-1m.bin'), sha(files['big/blob-1m.bin']));
  });

  it('a second copy brings in a changed object and leaves unchanged files alone', async () => {
    const m: NodeMount = { dst: '~/data', mode: 'COPY', target: { store: 's3', bucket: 'copy-src', prefix: '' } };
    const ctime = async (f: string): Promise<string> => (await env.hosts.hosts[0].exec(`stat -c %z ~/data/${f}`)).stdout.trim();
    const before = { big: await ctime('big/blob-5m.bin'), deep: await ctime('a/b/c/deep.bin') };
    const changed = randomBytes(3000);
    await env.s3.put('copy-src', 'a/b/c/deep.bin', changed);
    await copyFromBucket(env.context(), m);
    const tree = await hostTree(env, '~/data');
    assert.equal(tree.get('a/b/c/deep.bin'), sha(changed));
    // Any write (or modtime change) moves a file's ctime: the rewritten file's moved, the other's did not.
    assert.notEqual(await ctime('a/b/c/deep.bin'), before.deep);
    assert.equal(await ctime('big/blob-5m.bin'), before.big);
    assert.equal(tree.get('big/blob-5m.bin'), sha(files['big/blob-5m.bin']));
  });
});
