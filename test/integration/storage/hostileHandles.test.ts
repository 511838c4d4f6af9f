// A down reads each mount's handle.json back from the node: a file there, not proof. A record
// whose pid is not a number (it reaches `kill -0 <pid>` in a shell) or that names another mount
// point than its own state dir is for must not be acted on.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { detachBuckets, type StorageNode } from '../../../src/core/ops/bucketAttach';
import type { OpsContext } from '../../../src/core/ops';
import { lazyUnmount, mountBucket, type MountHandle, type NodeMount } from '../../../src/core/storage';
import { requireStorageTools, startStorageEnv, type StorageEnv } from './env';

describe('storage: planted handle.json records at down (real sshd host, FUSE, moto S3)', function () {
  this.timeout(120_000);
  let env: StorageEnv;
  before(async function () {
    requireStorageTools(this);
    env = await startStorageEnv();
    await env.s3.createBucket('handles');
  });
  after(async () => { await env?.teardown(); });

  const ctx = { progress: () => undefined, log: () => undefined, warn: () => undefined } as unknown as OpsContext;
  const marker = async () => (await env.t.execShell('test -e "$HOME/pwned-by-handle"')).code === 0;

  const mounted = async (mp: string) => (await env.t.exec(['cat', '/proc/self/mountinfo'])).stdout.toString().includes(` ${mp} `);
  const mount = (dst: string, stateBase = '~/.skydeck/storage') => mountBucket({ ...env.context(), stateBase },
    { dst, mode: 'MOUNT_CACHED', target: { store: 's3', bucket: 'handles', prefix: '' } } satisfies NodeMount);
  const plant = (h: MountHandle, rec: unknown) => env.t.exec(['sh', '-c', 'cat > "$1"', 'sh', `${h.stateDir}/handle.json`], { stdin: JSON.stringify(rec) });
  const nodeOf = (h: MountHandle): StorageNode => ({ name: 'host', transport: env.t, stateBase: path.posix.dirname(h.stateDir) });
  const release = async (h: MountHandle) => {
    await lazyUnmount(env.t, h.mountPoint);
    await env.t.exec(['kill', String(h.pid)]);
  };

  it('a pid carrying a shell command is never run (the record is ignored)', async () => {
    const h = await mount('~/hh-pid');
    try {
      await plant(h, { ...h, pid: `${h.pid}; touch "$HOME/pwned-by-handle"` });
      const notes = await detachBuckets(ctx, nodeOf(h), 5_000);
      assert.equal(await marker(), false, 'the pid field ran as a command');
      assert.deepEqual(notes, []);
      assert.ok(await mounted(h.mountPoint), 'left mounted');
    } finally {
      await release(h);
      await env.t.execShell('rm -f "$HOME/pwned-by-handle"');
    }
  });

  it('a record pointing at another cluster\'s mount (other state base) does not unmount it', async () => {
    const ours = await mount('~/hh-ours');
    const theirs = await mount('~/hh-theirs', '~/.other-cluster/storage');
    try {
      await plant(ours, { ...theirs, stateDir: ours.stateDir });
      await detachBuckets(ctx, nodeOf(ours), 5_000);
      assert.ok(await mounted(theirs.mountPoint), 'the other cluster\'s mount is still there');
      assert.equal((await env.t.exec(['kill', '-0', String(theirs.pid)])).code, 0, 'its rclone still runs');
    } finally {
      await release(ours);
      await release(theirs);
    }
  });
});
