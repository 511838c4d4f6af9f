import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cancel, down, exec, launch, logs, queue, status } from '../../../src/core/ops';
import { TestOps, waitFor, writeTask } from './helpers';
import { sshFixture, type SshFixture } from './sshFixture';

describe('ops on the ssh cloud (real sshd hosts)', function () {
  this.timeout(120_000);
  let fx: SshFixture;
  let ops: TestOps;
  before(async () => {
    fx = await sshFixture(2);
  });
  after(async () => {
    await fx?.env.stop();
  });
  afterEach(async () => {
    await fx.cleanup(ops);
  });
  const opsWith = (k: 'known' | 'unknown', onUnknownHostKey?: (h: string, fp: string) => Promise<boolean>) =>
    fx.ops(k, { onUnknownHostKey });

  it('launch → exec ×3 → queue → logs → cancel → down, on a pool host', async () => {
    ops = await opsWith('known');
    const ws = ops.workspaceRoot;
    fs.mkdirSync(path.join(ws, 'proj'));
    fs.writeFileSync(path.join(ws, 'proj', 'train.py'), 'print("training")\n');
    fs.writeFileSync(path.join(ws, 'mount.txt'), 'mounted file\n');
    const task = writeTask(ws, 'task.yaml', [
      'name: first', 'workdir: proj', 'resources: {infra: ssh/lab}', 'file_mounts: {~/inputs/m.txt: mount.txt}',
      'run: |', '  python3 train.py', '  cat ~/inputs/m.txt', '  echo "rank $SKYPILOT_NODE_RANK of $SKYPILOT_NUM_NODES on $(whoami) in $PWD"',
    ].join('\n'));
    let out = '';
    const r = await launch(ops, { taskFile: task, cluster: 'rem', onOutput: (d) => (out += d) });
    assert.equal(r.final?.status, 'SUCCEEDED', out);
    const h0 = fx.env.hosts[0];
    assert.equal(out, `training\nmounted file\nrank 0 of 1 on ${h0.user} in ${h0.home}/sky_workdir\n`);
    const [row] = (await status(ops)).map((s) => s.cluster);
    assert.equal(row.provider, 'ssh');
    assert.equal(row.head_address, h0.address);

    for (let i = 0; i < 3; i++) {
      await exec(ops, { cluster: 'rem', taskFile: writeTask(ws, `x${i}.yaml`, `run: echo exec ${i}; sleep ${i === 2 ? 60 : 0}\n`), detach: true });
    }
    await waitFor('job 4 running', async () => (await queue(ops, 'rem')).find((j) => j.job_id === 4 && j.status === 'RUNNING'));
    let log3 = '';
    await logs(ops, { cluster: 'rem', jobId: 3, onOutput: (d) => (log3 += d) });
    assert.equal(log3, 'exec 1\n');
    await cancel(ops, 'rem', { all: true }, 1);
    await waitFor('job 4 cancelled', async () => (await queue(ops, 'rem')).find((j) => j.job_id === 4)?.status === 'CANCELLED');
    assert.ok((await h0.exec('test -d ~/.skydeck && echo yes')).stdout.includes('yes'));
    await down(ops, 'rem', { graceSeconds: 1 });
    assert.equal((await h0.exec('test -e ~/.skydeck && echo still-there || echo gone')).stdout.trim(), 'gone');
    assert.equal((await h0.exec('pgrep -u "$(id -u)" -f "[s]kydeck_agent" || true')).stdout.trim(), '', 'no Skydeck process left on the host');
    assert.deepEqual(await status(ops), []);
  });

  it('claims free pool hosts and refuses when the pool is full', async () => {
    ops = await opsWith('known');
    const t = writeTask(ops.workspaceRoot, 't.yaml', 'resources: {cloud: ssh}\nrun: echo ok\n');
    await launch(ops, { taskFile: t, cluster: 'a', detach: true });
    await launch(ops, { taskFile: t, cluster: 'b', detach: true });
    const heads = (await status(ops)).map((s) => s.cluster.head_address).sort();
    assert.deepEqual(heads, fx.env.hosts.map((h) => h.address).sort());
    await assert.rejects(launch(ops, { taskFile: t, cluster: 'c' }), /SSH pool "lab" has 0 free host\(s\) of 2.*in use by: a, b/);
  });

  it('asks about the unknown host key of a user pool, and stops when refused', async () => {
    const asked: string[] = [];
    ops = await opsWith('unknown', async (host, fp) => {
      asked.push(`${host} ${fp}`);
      return false;
    });
    const t = writeTask(ops.workspaceRoot, 't.yaml', 'resources: {cloud: ssh}\nrun: echo ok\n');
    await assert.rejects(launch(ops, { taskFile: t, cluster: 'k' }), /host key/i);
    const h = fx.env.hosts[0];
    assert.deepEqual(asked, [`${h.address}:${h.port} ${h.hostKeyFingerprint}`]);
    const [row] = (await status(ops)).map((s) => s.cluster);
    assert.equal(row.status, 'INIT');
    assert.match(row.last_error ?? '', /host key/i, 'the failed launch is kept with its error');
  });
});
