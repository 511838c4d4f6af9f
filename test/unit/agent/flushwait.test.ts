import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentFixture, jobRow, waitStatus, waitUntil } from './helpers';

// MOUNT_CACHED (agent/README.md, "Cached mounts"): a fake rclone cache dir whose vfsMeta files
// say "Dirty" as rclone's do (vfs/vfscache/item.go writes the item's metadata as JSON with a
// "Dirty" field), registered where the client's cachedRegistry.ts writes it.
describe('agent: a job ends only after its cached mounts uploaded', function () {
  this.timeout(30000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  function cachedMount(id: string, label: string, extra: Record<string, unknown> = {}): (dirty: boolean) => void {
    // Where the client puts it: stateBase is always <agent base>/storage (bucketAttach.ts).
    const stateDir = path.join(fx.base, 'storage', id);
    const meta = path.join(stateDir, 'cache', 'vfsMeta', 'skydeck', 'b', 'ckpt');
    fs.mkdirSync(meta, { recursive: true });
    const reg = path.join(fx.base, 'storage', 'cached');
    fs.mkdirSync(reg, { recursive: true });
    fs.writeFileSync(path.join(reg, `${id}.json`),
      JSON.stringify({ dst: '/ckpt', stateDir, label, pid: process.pid, timeout_s: 1800, ...extra }));
    return (dirty) => {
      for (const n of ['a.pt', 'b.pt']) {
        const tmp = path.join(meta, `.${n}.tmp`);
        fs.writeFileSync(tmp, JSON.stringify({ ModTime: '2026-01-01T00:00:00Z', Size: 3, Dirty: dirty }));
        fs.renameSync(tmp, path.join(meta, n)); // as rclone replaces it: never half-written
      }
    };
  }

  async function logText(c: ReturnType<AgentFixture['serve']>, job_id: number): Promise<string> {
    return (await c.logs({ job_id })).data.toString();
  }

  it('stays RUNNING with a log line while the cache is dirty, SUCCEEDED once it is clean', async () => {
    const setDirty = cachedMount('0123456789abcdef', '/ckpt: s3://b');
    setDirty(true);
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'echo trained' });
    await waitUntil(async () => /waiting for \/ckpt: s3:\/\/b write cache to upload \(2 files\)/.test(await logText(c, job_id)),
      10000, 'the waiting line');
    assert.equal((await jobRow(c, job_id)).status, 'RUNNING');
    setDirty(false);
    const row = await waitStatus(c, job_id, 'SUCCEEDED');
    assert.equal(row.exit_code, 0);
    assert.match(await logText(c, job_id), /^trained\n\[skydeck\] waiting for/);
  });

  it('a cache that never uploads within the limit fails the job, naming the mount', async () => {
    cachedMount('00000000000000aa', '/ckpt: s3://b', { timeout_s: 0.5 })(true);
    cachedMount('00000000000000bb', '/data: gs://clean')(false);
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'true' });
    const row = await waitStatus(c, job_id, 'FAILED');
    assert.equal(row.exit_code, 0);
    assert.match(row.reason, /^\/ckpt: s3:\/\/b: write cache not uploaded within 0.5 s \(2 file\(s\) left\)/);
    assert.doesNotMatch(row.reason, /gs:\/\/clean/);
  });

  it('a failed run keeps its own reason first', async () => {
    cachedMount('00000000000000cc', '/ckpt: s3://b', { timeout_s: 0.3 })(true);
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'exit 3' });
    const row = await waitStatus(c, job_id, 'FAILED');
    assert.equal(row.exit_code, 3);
    assert.match(row.reason, /^run exited with code 3; \/ckpt: s3:\/\/b: write cache not uploaded/);
  });

  it('rclone gone with dirty files: FAILED at once, not after the limit', async () => {
    const dead = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim();
    cachedMount('00000000000000dd', '/ckpt: s3://b', { pid: Number(dead) })(true);
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'true' });
    const row = await waitStatus(c, job_id, 'FAILED');
    assert.match(row.reason, /^\/ckpt: s3:\/\/b: rclone mount exited with 2 file\(s\) not uploaded/);
  });

  it('cancel during the wait still cancels', async () => {
    cachedMount('00000000000000ee', '/ckpt: s3://b')(true);
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'true' });
    await waitUntil(async () => /waiting for/.test(await logText(c, job_id)), 10000, 'the wait');
    await c.call('cancel', { job_ids: [job_id], grace: 1 });
    const row = await waitStatus(c, job_id, 'CANCELLED');
    assert.equal(row.reason, 'cancelled by request');
    // Nothing is left waiting: no process of this base dir still runs _done for the job.
    await waitUntil(() => !fs.readdirSync('/proc').some((p) => {
      try { return /_done\0/.test(fs.readFileSync(`/proc/${p}/cmdline`, 'latin1')) && fs.readFileSync(`/proc/${p}/cmdline`, 'latin1').includes(fx.base); } catch { return false; }
    }), 10000, 'the waiting reporter to go');
  });

  // Hostile entries: the registry and the cache dirs are plain files on the node; the wait must
  // only ever read rclone's metadata under this agent's storage dir, and only regular files.
  it('an entry whose stateDir is outside <base>/storage is ignored (no wait, no read there)', async () => {
    const outside = fs.mkdtempSync(path.join(path.dirname(fx.base), 'planted-'));
    try {
      const meta = path.join(outside, 'cache', 'vfsMeta');
      fs.mkdirSync(meta, { recursive: true });
      fs.writeFileSync(path.join(meta, 'x'), '{"Dirty": true}');
      const reg = path.join(fx.base, 'storage', 'cached');
      fs.mkdirSync(reg, { recursive: true });
      fs.writeFileSync(path.join(reg, 'planted.json'), JSON.stringify({ stateDir: outside, label: 'planted', pid: 1, timeout_s: 1e300 }));
      const c = fx.serve();
      const { job_id } = await c.call('submit', { run: 'echo ok' });
      await waitStatus(c, job_id, 'SUCCEEDED');
      assert.equal(await logText(c, job_id), 'ok\n');
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a FIFO or a symlink in vfsMeta is not read (no hang, no file outside counted dirty)', async () => {
    const setDirty = cachedMount('00000000000000ff', '/ckpt: s3://b');
    setDirty(false);
    const meta = path.join(fx.base, 'storage', '00000000000000ff', 'cache', 'vfsMeta');
    const elsewhere = path.join(fx.base, 'elsewhere.json');
    fs.writeFileSync(elsewhere, '{"Dirty": true}');
    fs.symlinkSync(elsewhere, path.join(meta, 'link'));
    assert.equal(spawnSync('mkfifo', [path.join(meta, 'fifo')]).status, 0);
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'echo ok' });
    await waitStatus(c, job_id, 'SUCCEEDED');
    assert.equal(await logText(c, job_id), 'ok\n');
  });

  it('vfsMeta that is a symlink out of the state dir is not walked', async () => {
    cachedMount('0000000000000100', '/ckpt: s3://b');
    const meta = path.join(fx.base, 'storage', '0000000000000100', 'cache', 'vfsMeta');
    const outside = path.join(fx.base, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'x'), '{"Dirty": true}');
    fs.rmSync(meta, { recursive: true });
    fs.symlinkSync(outside, meta);
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'echo ok' });
    await waitStatus(c, job_id, 'SUCCEEDED');
  });

  it('no registered mount: the end is recorded as before', async () => {
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'echo x' });
    await waitStatus(c, job_id, 'SUCCEEDED');
    assert.equal(await logText(c, job_id), 'x\n');
  });
});
