// Bucket mounts through the real launch/exec/down path: a 2-host ssh pool of real sshd test
// hosts with FUSE, rclone on the hosts, moto's S3. The keys live only in this process's env
// (the SDK's default chain finds them there, as it would the user's); the hosts reach moto via
// the OpsContext's storage endpoint override.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { down, exec, launch, logs, queue } from '../../../src/core/ops';
import { OpsError } from '../../../src/core/ops/errors';
import { startMoto, type MotoServer } from '../../support/moto';
import { enableFuseIn } from '../../support/fuseHost';
import { requireStorageTools } from '../storage/env';
import { S3Http } from '../storage/s3Http';
import { writeTask, type TestOps } from './helpers';
import { sshFixture, type SshFixture } from './sshFixture';

describe('ops: bucket mounts on an ssh pool (real sshd hosts, FUSE, moto S3)', function () {
  this.timeout(240_000);
  let fx: SshFixture;
  let moto: MotoServer;
  let s3: S3Http;
  let ops: TestOps;
  let logLines: string[];
  const secret = `sk-${randomBytes(12).toString('hex')}`;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY, profile: process.env.AWS_PROFILE };

  before(async function () {
    requireStorageTools(this);
    moto = await startMoto();
    s3 = new S3Http(moto.url);
    fx = await sshFixture(2);
    for (const h of fx.env.hosts) await enableFuseIn(h, fx.env.dir);
    await s3.createBucket('bkt');
    await s3.put('bkt', 'in.txt', Buffer.from('from-the-bucket\n'));
    delete process.env.AWS_PROFILE;
    process.env.AWS_ACCESS_KEY_ID = 'AKIDOPSBUCKETS';
    process.env.AWS_SECRET_ACCESS_KEY = secret;
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

  async function bucketOps(share: boolean): Promise<TestOps> {
    const o = await fx.ops('known');
    o.storageCredentials = share ? 'share' : 'never';
    o.storageAccess = { endpoint: moto.url, region: 'us-east-1' };
    logLines = [];
    o.log = (m) => logLines.push(m);
    return o;
  }

  const rcloneMounts = async (i: number): Promise<string[]> =>
    (await fx.env.hosts[i].exec('cat /proc/self/mountinfo')).stdout.split('\n').filter((l) => l.includes(' fuse.rclone '));

  it('COPY, MOUNT and MOUNT_CACHED on both nodes: the job reads the bucket, its writes land there, down unmounts everything', async () => {
    ops = await bucketOps(true);
    const task = writeTask(ops.workspaceRoot, 'b.yaml', [
      'num_nodes: 2', 'resources: {infra: ssh/lab}', // no workdir: the worker's ~/sky_workdir is made anyway
      'file_mounts:',
      '  ~/data: {source: s3://bkt, mode: COPY}',
      '  ~/m: {source: s3://bkt, mode: MOUNT}',
      '  ~/c: {source: s3://bkt/ckpt, mode: MOUNT_CACHED}',
      'run: |',
      '  set -e',
      '  echo "rank $SKYPILOT_NODE_RANK copy=$(cat ~/data/in.txt) mount=$(cat ~/m/in.txt)"',
      '  mkdir -p ~/m/out && echo "written by $SKYPILOT_NODE_RANK" > ~/m/out/rank$SKYPILOT_NODE_RANK.txt',
      '  echo "ckpt $SKYPILOT_NODE_RANK" > ~/c/rank$SKYPILOT_NODE_RANK.txt',
    ].join('\n'));
    let out = '';
    const r = await launch(ops, { taskFile: task, cluster: 'bk', onOutput: (d) => (out += d) });
    let rank1 = '';
    await logs(ops, { cluster: 'bk', jobId: r.jobId, rank: 1, onOutput: (d) => (rank1 += d) });
    assert.equal(r.final?.status, 'SUCCEEDED', `${out}\n--- rank 1:\n${rank1}`);
    assert.match(out, /rank 0 copy=from-the-bucket mount=from-the-bucket/);
    assert.match(rank1, /rank 1 copy=from-the-bucket mount=from-the-bucket/);
    // MOUNT writes are in the bucket as soon as the job is done.
    for (const rank of [0, 1]) assert.equal((await s3.get('bkt', `out/rank${rank}.txt`))?.toString(), `written by ${rank}\n`);
    for (const [i, h] of fx.env.hosts.entries()) {
      const said = ops.progressLines.filter((l) => l.startsWith('copied your AWS credentials to ') && l.includes(h.address));
      assert.deepEqual(said.map((l) => l.replace(/ to .+? for /, ' to NODE for ')).sort(), [
        'copied your AWS credentials to NODE for ~/data: s3://bkt (skydeck.storage.shareCredentials is on)',
        'copied your AWS credentials to NODE for ~/c: s3://bkt/ckpt (skydeck.storage.shareCredentials is on)',
        'copied your AWS credentials to NODE for ~/m: s3://bkt (skydeck.storage.shareCredentials is on)',
      ].sort(), `host ${i}: ${ops.progressLines.join('\n')}`);
      assert.equal((await rcloneMounts(i)).length, 2, `host ${i}: ${(await rcloneMounts(i)).join('\n')}`);
    }

    // exec onto the cluster keeps the running mounts (same mount ids), and sees the first job's writes.
    const before = [await rcloneMounts(0), await rcloneMounts(1)];
    await exec(ops, { cluster: 'bk', taskFile: writeTask(ops.workspaceRoot, 'x.yaml', 'num_nodes: 2\nfile_mounts:\n  ~/m: s3://bkt\nrun: cat ~/m/out/rank1.txt\n'), detach: true });
    const done = await waitJob(ops, 'bk', 2);
    assert.equal(done, 'SUCCEEDED');
    assert.deepEqual([await rcloneMounts(0), await rcloneMounts(1)], before);

    const d = await down(ops, 'bk', { graceSeconds: 1 });
    for (const i of [0, 1]) assert.deepEqual(await rcloneMounts(i), [], `host ${i} still has rclone mounts`);
    assert.equal(d.notes.filter((n) => n.startsWith('unmounted ')).length, 4, d.notes.join('\n'));
    // The cached writes reached the bucket before the unmount.
    for (const rank of [0, 1]) assert.equal((await s3.get('bkt', `ckpt/rank${rank}.txt`))?.toString(), `ckpt ${rank}\n`);
    // The secret went to the nodes over stdin only: never in progress, warnings, logs or output.
    for (const text of [...ops.progressLines, ...ops.warnings, ...logLines, out, rank1, ...d.notes]) assert.ok(!text.includes(secret), text);
  });

  it('a bucket that does not exist fails the launch naming the mount; no job is queued', async () => {
    ops = await bucketOps(true);
    const task = writeTask(ops.workspaceRoot, 'n.yaml', 'resources: {infra: ssh/lab}\nfile_mounts:\n  ~/m: {source: s3://no-such-bkt, mode: MOUNT}\nrun: echo never\n');
    await assert.rejects(launch(ops, { taskFile: task, cluster: 'nb' }), (e: Error) => {
      assert.ok(e instanceof OpsError, String(e));
      assert.match(e.message, /~\/m: s3:\/\/no-such-bkt: the bucket does not exist/);
      return true;
    });
    assert.deepEqual(await queue(ops, 'nb'), []);
    assert.deepEqual(await rcloneMounts(0), []);
  });

  it('without the opt-in, an ssh launch with a bucket is refused before anything is claimed', async () => {
    ops = await bucketOps(false);
    const task = writeTask(ops.workspaceRoot, 'o.yaml', 'resources: {infra: ssh/lab}\nfile_mounts:\n  /data: s3://bkt\nrun: echo never\n');
    await assert.rejects(launch(ops, { taskFile: task, cluster: 'no' }), (e: Error) => {
      assert.ok(e instanceof OpsError && e.kind === 'usage', String(e));
      assert.match(e.message, /^file_mounts \/data: s3:\/\/bkt: an ssh pool host has no identity of its own to read S3 with, and Skydeck copies your credentials to a node only if you opt in: set skydeck\.storage\.shareCredentials to true/);
      return true;
    });
    const rows = await ops.store.read((db) => db.exec('SELECT name FROM clusters')[0]?.values ?? []);
    assert.deepEqual(rows, []);
  });
});

async function waitJob(ops: TestOps, cluster: string, id: number): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const j = (await queue(ops, cluster)).find((x) => x.job_id === id);
    if (j && ['SUCCEEDED', 'FAILED', 'CANCELLED', 'FAILED_SETUP'].includes(j.status)) return j.status;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${id} did not end`);
}
