// Cloud clusters' bucket mounts at down and stop (issue 16: "unmounted at down"). The nodes are
// real sshd test hosts with FUSE and rclone, the bucket moto's S3; a 2-node ssh cluster is
// launched with MOUNT and MOUNT_CACHED, then its row is turned into one of the in-process fake
// cloud (same hosts), so down/stop take the cloud path. An unreachable node is only a warning.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import * as net from 'node:net';
import { down, launch, stop } from '../../../src/core/ops';
import { unmountCloudBuckets } from '../../../src/core/ops/cloudUnmount';
import { getCluster, thisCreator } from '../../../src/core/state';
import { staticProviders } from '../../../src/core/clouds/provider';
import { FakeProvider } from '../../support/fakeCloud/fakeProvider';
import { DEFAULT_ACCOUNT } from '../../support/fakeCloud/model';
import { startMoto, type MotoServer } from '../../support/moto';
import { enableFuseIn } from '../../support/fuseHost';
import { requireStorageTools } from '../storage/env';
import { S3Http } from '../storage/s3Http';
import { writeTask, type TestOps } from './helpers';
import { sshFixture, type SshFixture } from './sshFixture';

describe('ops: a cloud cluster\'s bucket mounts go before its instances (real sshd hosts, FUSE, moto S3)', function () {
  this.timeout(240_000);
  let fx: SshFixture;
  let moto: MotoServer;
  let s3: S3Http;
  let ops: TestOps;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY, profile: process.env.AWS_PROFILE };

  before(async function () {
    requireStorageTools(this);
    moto = await startMoto();
    s3 = new S3Http(moto.url);
    fx = await sshFixture(2);
    for (const h of fx.env.hosts) await enableFuseIn(h, fx.env.dir);
    await s3.createBucket('cbkt');
    delete process.env.AWS_PROFILE;
    process.env.AWS_ACCESS_KEY_ID = 'AKIDCLOUDUNMOUNT';
    process.env.AWS_SECRET_ACCESS_KEY = `sk-${randomBytes(12).toString('hex')}`;
  });
  after(async () => {
    for (const [k, v] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret], ['AWS_PROFILE', saved.profile]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await fx?.env.stop();
    await moto?.stop();
  });
  afterEach(async () => { await fx.cleanup(ops); });

  const rcloneMounts = async (i: number): Promise<string[]> =>
    (await fx.env.hosts[i].exec('cat /proc/self/mountinfo')).stdout.split('\n').filter((l) => l.includes(' fuse.rclone '));

  /** A 2-node cluster with a MOUNT and a MOUNT_CACHED on each node, then made a cloud cluster of the fake provider. */
  async function cloudCluster(name: string): Promise<void> {
    ops = await fx.ops('known');
    ops.storageCredentials = 'share';
    ops.storageAccess = { endpoint: moto.url, region: 'us-east-1' };
    ops.providers = staticProviders(new FakeProvider({ cloud: 'fake' }));
    const task = writeTask(ops.workspaceRoot, `${name}.yaml`, [
      'num_nodes: 2', 'resources: {infra: ssh/lab}',
      'file_mounts:', '  ~/m: {source: s3://cbkt, mode: MOUNT}', '  ~/c: {source: s3://cbkt/ckpt, mode: MOUNT_CACHED}',
      'run: echo up',
    ].join('\n'));
    const r = await launch(ops, { taskFile: task, cluster: name });
    assert.equal(r.final?.status, 'SUCCEEDED');
    for (const i of [0, 1]) assert.equal((await rcloneMounts(i)).length, 2, `host ${i} has both mounts`);
    await ops.store.write((db) => db.run("UPDATE clusters SET provider = 'fake', region = NULL, account = ? WHERE name = ?", [DEFAULT_ACCOUNT, name]));
  }

  it('down: flushes MOUNT_CACHED and unmounts on every node before the instances go', async () => {
    await cloudCluster('cu');
    // Written outside any job, so only the down's flush can bring them to the bucket.
    for (const [i, h] of fx.env.hosts.entries()) {
      const w = await h.exec(`echo late-${i} > ~/c/late${i}.txt`);
      assert.equal(w.code, 0, w.stderr);
    }
    const d = await down(ops, 'cu');
    assert.equal(d.notes.filter((n) => n.startsWith('unmounted ')).length, 4, d.notes.join('\n'));
    for (const i of [0, 1]) {
      assert.deepEqual(await rcloneMounts(i), [], `host ${i} still has rclone mounts`);
      assert.equal((await s3.get('cbkt', `ckpt/late${i}.txt`))?.toString(), `late-${i}\n`, `host ${i}'s cached write reached the bucket`);
    }
    assert.equal(await ops.store.read((db) => getCluster(db, 'cu')), undefined, 'the cluster is gone');
    assert.deepEqual(ops.warnings.filter((w) => /not unmounted/.test(w)), []);
  });

  it('stop: unmounts on every node too', async () => {
    await cloudCluster('cs');
    await stop(ops, 'cs').catch(() => undefined); // the fake cloud holds no instances of it: only the mounts matter here
    for (const i of [0, 1]) assert.deepEqual(await rcloneMounts(i), [], `host ${i} still has rclone mounts`);
    assert.ok(ops.progressLines.some((l) => /^Unmounting ~\/c: s3:\/\/cbkt\/ckpt on /.test(l)), ops.progressLines.join('\n'));
  });

  it('a worker that cannot be reached is a warning; the down goes on and forgets the cluster', async () => {
    await cloudCluster('cw');
    const closed = await closedPort();
    await ops.store.write((db) => {
      const row = getCluster(db, 'cw')!;
      const h = JSON.parse(row.handle!);
      h.hosts[1] = { ...h.hosts[1], port: closed };
      db.run('UPDATE clusters SET handle = ? WHERE uid = ?', [JSON.stringify(h), row.uid]);
    });
    const d = await down(ops, 'cw');
    assert.equal(d.notes.filter((n) => n.startsWith('unmounted ')).length, 2, d.notes.join('\n'));
    assert.deepEqual(await rcloneMounts(0), [], 'the head was unmounted');
    const worker = fx.env.hosts[1].address;
    const warned = ops.warnings.filter((w) => w.startsWith(`bucket mounts on worker ${worker} were not unmounted (Connection to ${worker}:${closed} refused`)
      && /\); the instances go ahead regardless/.test(w));
    assert.equal(warned.length, 1, ops.warnings.join('\n'));
    assert.equal(await ops.store.read((db) => getCluster(db, 'cw')), undefined);
    // The worker's mounts are still there (it was "unreachable"): tidy up for the next test.
    await fx.env.hosts[1].exec('for d in ~/m ~/c; do fusermount3 -u "$d" 2>/dev/null || fusermount -u "$d"; done; true');
  });

  it('a node that accepts the connection but never answers is given up after the reach time', async () => {
    ops = await fx.ops('known');
    const silent = net.createServer(() => undefined); // accepts, never speaks SSH
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const host = { address: '127.0.0.1', port, user: fx.env.hosts[0].user, identityFile: fx.env.clientKeyPath };
      const row = {
        name: 'cq', uid: randomUUID(), provider: 'fake', status: 'UP', num_nodes: 1, flags: null,
        created_by_user: thisCreator().user, created_by_machine: thisCreator().machine,
        handle: JSON.stringify({ hosts: [host], workdir: '/tmp', base: undefined }),
      } as unknown as Parameters<typeof unmountCloudBuckets>[1];
      const r = await unmountCloudBuckets(ops, row, { reachMs: 1500 });
      assert.deepEqual(r.notes, []);
      assert.equal(r.warnings.length, 1);
      assert.match(r.warnings[0], /^bucket mounts on the head of cq were not unmounted \((no answer within 2 s|.*timed out.*)\)/i);
    } finally {
      silent.close();
    }
  });
});

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
