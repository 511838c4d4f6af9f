// Issue 16 review: kill -9 of a MOUNT_CACHED rclone (real FUSE on an sshd host, moto S3). With
// nothing left to upload the down still goes through (the dead mount is removed, ls never
// hangs); with a write still in the cache the down refuses, and the next mount (a relaunch)
// uploads it from the cache, after which the down goes through.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { flushState, mountAt, mountBucket, unmountBucket, waitFlushed, type NodeMount } from '../../../src/core/storage';
import { requireStorageTools, startStorageEnv, type StorageEnv } from './env';
import { startHoldingProxy, type HoldingProxy } from './holdingProxy';

describe('storage: MOUNT_CACHED after kill -9 of rclone (issue 16 review)', function () {
  this.timeout(180_000);
  let env: StorageEnv;
  let proxy: HoldingProxy;

  before(async function () {
    requireStorageTools(this);
    env = await startStorageEnv();
    proxy = await startHoldingProxy(env.moto.url);
    await env.s3.createBucket('crash');
  });
  after(async () => {
    await proxy?.close();
    await env?.teardown();
  });
  const sh = async (cmd: string): Promise<string> => {
    const r = await env.hosts.hosts[0].exec(cmd);
    assert.equal(r.code, 0, `${cmd}: ${r.stderr}`);
    return r.stdout;
  };

  it('everything uploaded, then kill -9: the flush-wait passes and the dead mount is removed', async () => {
    const m: NodeMount = { dst: '~/c1', mode: 'MOUNT_CACHED', target: { store: 's3', bucket: 'crash', prefix: 'c1' } };
    const h = await mountBucket(env.context(), m);
    const data = randomBytes(10_000);
    await env.t.exec(['sh', '-c', 'cat > "$1"', 'sh', `${h.mountPoint}/done.bin`], { stdin: data });
    await waitFlushed(env.t, h, 60_000);
    await sh(`kill -9 ${h.pid}`);
    await waitFlushed(env.t, h, 60_000); // what a down does first
    await unmountBucket(env.t, h, 2_000);
    assert.equal(await mountAt(env.t, h.mountPoint), undefined);
    assert.equal((await sh('timeout 20 ls -A ~/c1')).trim(), '');
    assert.deepEqual(await env.s3.get('crash', 'c1/done.bin'), data);
  });

  it('kill -9 with a write still in the cache: the down refuses naming it; a relaunch\'s mount uploads it', async () => {
    const m: NodeMount = { dst: '~/c2', mode: 'MOUNT_CACHED', target: { store: 's3', bucket: 'crash', prefix: 'c2' } };
    const h = await mountBucket(env.context({ endpoint: proxy.url }), m);
    proxy.hold((method, path) => method === 'PUT' && path.startsWith('/crash/c2/late.bin'));
    const data = randomBytes(50_000);
    await env.t.exec(['sh', '-c', 'cat > "$1"', 'sh', `${h.mountPoint}/late.bin`], { stdin: data });
    await proxy.held();
    await sh(`kill -9 ${h.pid}`);
    proxy.hold(() => false);
    proxy.release();
    assert.deepEqual((await flushState(env.t, h)).pending, ['crash/c2/late.bin']);
    await assert.rejects(waitFlushed(env.t, h, 10_000), /exited with 1 file\(s\) not uploaded: crash\/c2\/late\.bin/);
    // The same remote configuration as before: rclone keys its cache by a hash of it.
    const again = await mountBucket(env.context({ endpoint: proxy.url }), m);
    await waitFlushed(env.t, again, 60_000);
    assert.deepEqual(await env.s3.get('crash', 'c2/late.bin'), data);
    await unmountBucket(env.t, again, 5_000);
    assert.equal(await mountAt(env.t, again.mountPoint), undefined);
  });

  it('a lazily unmounted rclone still serving an open file is ended by the next mount, not orphaned', async () => {
    const m: NodeMount = { dst: '~/c3', mode: 'MOUNT', target: { store: 's3', bucket: 'crash', prefix: 'c1' } };
    const h = await mountBucket(env.context(), m);
    // A process holding a file open keeps the FUSE connection (and rclone) alive after -z.
    const holder = (await sh(`setsid sleep 600 < ${h.mountPoint}/done.bin > /dev/null 2>&1 & echo $!`)).trim();
    await sh(`i=0; until readlink /proc/${holder}/fd/0 | grep -q done.bin; do i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done`);
    await sh(`fusermount3 -u -z ${h.mountPoint}`);
    assert.equal(await mountAt(env.t, h.mountPoint), undefined);
    assert.equal((await env.t.execShell(`kill -0 ${h.pid}`)).code, 0, 'rclone should still serve the open file');
    const again = await mountBucket(env.context(), m);
    try {
      assert.notEqual(again.pid, h.pid);
      assert.notEqual((await env.t.execShell(`kill -0 ${h.pid}`)).code, 0, 'the old rclone was left running');
      assert.equal((await mountAt(env.t, again.mountPoint))?.source, 'skydeck:crash/c1');
    } finally {
      await env.hosts.hosts[0].exec(`kill ${holder}; true`);
      await unmountBucket(env.t, again, 5_000);
    }
  });

  it('a crashed cache is uploaded by the next mount even when the keys changed meanwhile (rotated session)', async () => {
    const m: NodeMount = { dst: '~/c4', mode: 'MOUNT_CACHED', target: { store: 's3', bucket: 'crash', prefix: 'c4' } };
    const h = await mountBucket(env.context({ endpoint: proxy.url, keys: { accessKeyId: 'AKIAFIRST', secretAccessKey: 'first-secret' } }), m);
    proxy.hold((method, path) => method === 'PUT' && path.startsWith('/crash/c4/rot.bin'));
    const data = randomBytes(20_000);
    await env.t.exec(['sh', '-c', 'cat > "$1"', 'sh', `${h.mountPoint}/rot.bin`], { stdin: data });
    await proxy.held();
    await sh(`kill -9 ${h.pid}`);
    proxy.hold(() => false);
    proxy.release();
    const again = await mountBucket(env.context({ endpoint: proxy.url, keys: { accessKeyId: 'AKIASECOND', secretAccessKey: 'second-secret' } }), m);
    await waitFlushed(env.t, again, 60_000);
    assert.deepEqual(await env.s3.get('crash', 'c4/rot.bin'), data);
    await unmountBucket(env.t, again, 5_000);
  });
});
