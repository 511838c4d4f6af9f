import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { down, exec, launch, logs, queue } from '../../../src/core/ops';
import { TestOps, waitFor, writeTask } from './helpers';
import { sshFixture, type SshFixture } from './sshFixture';

describe('ops: a 3-node cluster on an ssh pool (real sshd hosts)', function () {
  this.timeout(180_000);
  let fx: SshFixture;
  let ops: TestOps;
  before(async () => { fx = await sshFixture(3); });
  after(async () => { await fx?.env.stop(); });
  afterEach(async () => { await fx.cleanup(ops); });

  it('launch syncs the workdir to every node, runs every rank, and down cleans every node', async () => {
    ops = await fx.ops('known');
    const ws = ops.workspaceRoot;
    fs.mkdirSync(path.join(ws, 'proj'));
    fs.writeFileSync(path.join(ws, 'proj', 'data.txt'), 'shard\n');
    const task = writeTask(ws, 'ddp.yaml', [
      'name: ddp', 'num_nodes: 3', 'workdir: proj', 'resources: {infra: ssh/lab}',
      'setup: echo "setup on rank $SKYPILOT_NODE_RANK"',
      'run: |', '  echo "rank $SKYPILOT_NODE_RANK/$SKYPILOT_NUM_NODES $(cat data.txt) head=$(echo "$SKYPILOT_NODE_IPS" | head -n1)"',
    ].join('\n'));
    let out = '';
    const r = await launch(ops, { taskFile: task, cluster: 'gang', onOutput: (d) => (out += d) });
    assert.equal(r.final?.status, 'SUCCEEDED', out);
    const head = fx.env.hosts[0].address;
    assert.match(out, new RegExp(`rank 0/3 shard head=${head.replace(/\./g, '\\.')}`));
    for (const rank of [1, 2]) {
      let log = '';
      await logs(ops, { cluster: 'gang', jobId: r.jobId, rank, onOutput: (d) => (log += d) });
      assert.ok(log.includes(`setup on rank ${rank}\n`) && log.includes(`rank ${rank}/3 shard head=${head}\n`), `rank ${rank}: ${log}`);
    }
    // exec reuses all three nodes and syncs the changed workdir to each.
    fs.writeFileSync(path.join(ws, 'proj', 'data.txt'), 'shard-2\n');
    await exec(ops, { cluster: 'gang', taskFile: writeTask(ws, 'x.yaml', 'num_nodes: 3\nworkdir: proj\nrun: cat data.txt\n'), detach: true });
    await waitFor('exec done', async () => (await queue(ops, 'gang')).find((j) => j.job_id === 2 && j.status === 'SUCCEEDED'));
    let log2 = '';
    await logs(ops, { cluster: 'gang', jobId: 2, rank: 2, onOutput: (d) => (log2 += d) });
    assert.equal(log2, 'shard-2\n');

    await down(ops, 'gang', { graceSeconds: 1 });
    for (const h of fx.env.hosts) {
      assert.equal((await h.exec('test -e ~/.skydeck && echo there || echo gone')).stdout.trim(), 'gone', h.user);
      assert.doesNotMatch((await h.exec('cat ~/.ssh/authorized_keys')).stdout, /skydeck-cluster:/, h.user);
    }
  });

  it('refuses num_nodes above 1 on the local cloud, and more nodes than a cluster has', async () => {
    ops = await fx.ops('known');
    const local = writeTask(ops.workspaceRoot, 'l.yaml', 'num_nodes: 2\nresources: {cloud: local}\nrun: echo hi\n');
    await assert.rejects(launch(ops, { taskFile: local, cluster: 'l' }), /local cloud is this one machine/);
    const one = writeTask(ops.workspaceRoot, 'one.yaml', 'resources: {infra: ssh/lab}\nrun: echo hi\n');
    await launch(ops, { taskFile: one, cluster: 'solo', detach: true });
    const three = writeTask(ops.workspaceRoot, 'three.yaml', 'num_nodes: 3\nresources: {infra: ssh/lab}\nrun: echo hi\n');
    await assert.rejects(launch(ops, { taskFile: three, cluster: 'solo' }), /solo has 1 node\(s\); the task needs 3/);
  });
});
