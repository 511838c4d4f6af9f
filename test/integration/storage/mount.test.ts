// MOUNT and MOUNT_CACHED with a real FUSE mount inside a real sshd test host (its own mount
// namespace; see test/support/fuseHost.ts), against moto's S3.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  flushState, mountAt, mountBucket, unmountBucket, waitFlushed, type NodeMount,
} from '../../../src/core/storage';
import { requireStorageTools, startStorageEnv, type StorageEnv } from './env';
import { startHoldingProxy, type HoldingProxy } from './holdingProxy';

describe('storage: MOUNT and MOUNT_CACHED on a test host (FUSE, moto S3)', function () {
  this.timeout(120_000);
  let env: StorageEnv;
  let proxy: HoldingProxy;
  const seed = randomBytes(300_000);

  before(async function () {
    requireStorageTools(this);
    env = await startStorageEnv();
    proxy = await startHoldingProxy(env.moto.url);
    await env.s3.createBucket('mnt');
    await env.s3.put('mnt', 'in/seed.bin', seed);
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

  it('MOUNT: reads stream from the bucket, a write is an object after unmount, nothing stays mounted', async () => {
    const m: NodeMount = { dst: '~/bkt', mode: 'MOUNT', target: { store: 's3', bucket: 'mnt', prefix: '' } };
    const h = await mountBucket(env.context(), m);
    const entry = await mountAt(env.t, h.mountPoint);
    assert.equal(entry?.fsType, 'fuse.rclone');
    assert.equal(entry?.source, 'skydeck:mnt');
    assert.deepEqual((await env.t.exec(['cat', `${h.mountPoint}/in/seed.bin`])).stdout, seed);
    const written = randomBytes(123_457);
    await sh('mkdir -p ~/bkt/out');
    await env.t.exec(['sh', '-c', 'cat > "$1"', 'sh', `${h.mountPoint}/out/job.bin`], { stdin: written });
    // Mounting the same bucket at the same place again is a no-op that finds the running mount.
    const again = await mountBucket(env.context(), m);
    assert.equal(again.pid, h.pid);
    await unmountBucket(env.t, h);
    assert.equal(await mountAt(env.t, h.mountPoint), undefined);
    assert.notEqual((await env.t.execShell(`kill -0 ${h.pid}`)).code, 0, 'rclone mount process still running');
    assert.deepEqual(await env.s3.get('mnt', 'out/job.bin'), written);
  });

  it('a mount of the same bucket at the same place by another cluster (another state dir) is refused, not shared; the owner keeps it', async () => {
    const m: NodeMount = { dst: '~/shared-bkt', mode: 'MOUNT', target: { store: 's3', bucket: 'mnt', prefix: '' } };
    const a = env.context();
    const h = await mountBucket(a, m);
    try {
      const b = { ...env.context(), stateBase: `${a.stateBase.replace(/\/+$/, '')}-other-cluster` };
      await assert.rejects(mountBucket(b, m), (e: Error) => {
        assert.match(e.message, /already mounted from the same bucket, but not by this cluster/);
        return true;
      });
      const again = await mountBucket(a, m);
      assert.equal(again.pid, h.pid, 'the owner relaunching keeps its own mount');
    } finally {
      await unmountBucket(env.t, h, 5_000);
    }
    assert.equal(await mountAt(env.t, h.mountPoint), undefined);
  });

  it('MOUNT_CACHED: the flush-wait returns only after the cached write is in the bucket', async () => {
    const m: NodeMount = { dst: '~/cached', mode: 'MOUNT_CACHED', target: { store: 's3', bucket: 'mnt', prefix: 'ckpt' } };
    const h = await mountBucket(env.context({ endpoint: proxy.url }), m);
    proxy.hold((method, path) => method === 'PUT' && path.startsWith('/mnt/ckpt/model.bin'));
    const data = randomBytes(2 * 1024 * 1024 + 3);
    await env.t.exec(['sh', '-c', 'cat > "$1"', 'sh', `${h.mountPoint}/model.bin`], { stdin: data });
    let flushed = false;
    const wait = waitFlushed(env.t, h, 60_000).then(() => { flushed = true; });
    // The upload has reached the store and is held there: the object cannot be in the bucket,
    // so the cache must still say so and the wait must not have returned.
    await proxy.held();
    const s = await flushState(env.t, h);
    assert.deepEqual(s.pending, ['mnt/ckpt/model.bin']);
    assert.equal(flushed, false);
    assert.equal(await env.s3.get('mnt', 'ckpt/model.bin'), undefined);
    proxy.release();
    await wait;
    assert.deepEqual(await env.s3.get('mnt', 'ckpt/model.bin'), data);
    await unmountBucket(env.t, h);
    assert.equal(await mountAt(env.t, h.mountPoint), undefined);
  });

  it('unmount waits out a busy mount, then detaches it lazily', async () => {
    const m: NodeMount = { dst: '~/busy', mode: 'MOUNT', target: { store: 's3', bucket: 'mnt', prefix: '' } };
    const h = await mountBucket(env.context(), m);
    // A process with its cwd in the mount keeps it busy for as long as it lives.
    const pid = Number((await sh(`cd ~/busy && { setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!; }`)).trim());
    assert.ok(pid > 1, 'the busy process started');
    try {
      await unmountBucket(env.t, h, 500);
      assert.equal(await mountAt(env.t, h.mountPoint), undefined);
    } finally {
      await sh(`kill ${pid} 2>/dev/null || true`); // only the process this test started
    }
  });
});
