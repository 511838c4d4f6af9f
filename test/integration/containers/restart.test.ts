// Issue 18: a container stopped under its cluster (a reboot of the node, the runtime restarted,
// `podman stop` outside Skydeck) is started again by the next use; the jobs that were running
// in it are FAILED_DRIVER with a reason naming the restart, and the cluster runs jobs again.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { down, exec, launch, queue, status } from '../../../src/core/ops';
import { readHandle } from '../../../src/core/ops/clusterHandle';
import { testOps, TestOps, waitFor, writeTask } from '../ops/helpers';
import { processesIn, requireTestImage } from '../../support/containers/testImage';

const running = (name: string) => execFileSync('podman', ['container', 'inspect', '--format', '{{.State.Running}}', name], { encoding: 'utf8' }).trim() === 'true';

describe('a container cluster whose container was stopped (podman)', function () {
  this.timeout(300_000);
  let ops: TestOps;
  let ctr: string;
  const logs: string[] = [];
  before(async function () {
    this.timeout(600_000);
    const image = requireTestImage(this);
    ops = await testOps({ connections: { log: (m) => logs.push(m) } });
    const t = writeTask(ops.workspaceRoot, 'up.yaml', `resources: {cloud: local, image_id: "docker:${image}"}\nrun: echo up\n`);
    assert.equal((await launch(ops, { taskFile: t, cluster: 'rb' })).final?.status, 'SUCCEEDED');
    ctr = readHandle((await status(ops))[0].cluster).container!.name;
  });
  after(async () => {
    if (!ops) return;
    await down(ops, 'rb', { graceSeconds: 1, purge: true }).catch(() => undefined);
    await ops.dispose();
  });

  it('is started again at the next use; its running jobs are FAILED_DRIVER naming the restart; new jobs run', async () => {
    const t = writeTask(ops.workspaceRoot, 'long.yaml', 'name: long\nrun: sleep 731\n');
    let id = 0;
    // A follow open across the stop reconnects, and ends with the job's end.
    const following = exec(ops, { cluster: 'rb', taskFile: t, onSubmitted: (j) => { id = j; } });
    await waitFor('the job submitted', async () => id > 0, 60_000);
    await waitFor('the job running', async () => (await queue(ops, 'rb')).find((j) => j.job_id === id)?.status === 'RUNNING', 60_000);
    // What a reboot does to the container: every process in it ends, the container stays.
    execFileSync('podman', ['stop', '-t', '0', ctr], { stdio: 'ignore' });
    assert.equal(running(ctr), false);
    const row = await waitFor('the job FAILED_DRIVER', async () => {
      const j = (await queue(ops, 'rb')).find((r) => r.job_id === id);
      return j?.status === 'FAILED_DRIVER' && j;
    }, 120_000);
    assert.match(String(row.reason), /container restarted/);
    assert.equal((await following).final?.status, 'FAILED_DRIVER');
    assert.equal(running(ctr), true, 'the container runs again');
    assert.ok(logs.some((m) => m.includes(`container ${ctr}`) && m.includes('started it again')), `said in the log: ${logs.join(' | ')}`);
    assert.ok(!processesIn(ctr).some((a) => a.includes('sleep 731')), 'nothing of the old job in the container');
    // The cluster works: a new job runs to the end with its output.
    let out = '';
    const r = await exec(ops, { cluster: 'rb', taskFile: writeTask(ops.workspaceRoot, 'hi.yaml', 'run: echo "after restart"\n'), onOutput: (d) => { out += d.toString(); } });
    assert.equal(r.final?.status, 'SUCCEEDED');
    assert.match(out, /after restart/);
  });

  it('a command whose own message looks like "no such container" is not taken for a removed container, nor run twice', async () => {
    const t = ops.connections.transportForCluster((await status(ops))[0].cluster);
    try {
      const r = await t.exec(['/bin/sh', '-c', 'echo x >> /tmp/ran-count; echo "Error: no such container" >&2; exit 125']);
      assert.equal(r.code, 125);
      assert.equal((await t.exec(['cat', '/tmp/ran-count'])).stdout.toString(), 'x\n');
    } finally {
      await t.close();
    }
  });

  it('a container removed outside Skydeck is a clear error, not a hang', async () => {
    execFileSync('podman', ['rm', '-f', '-t', '0', ctr], { stdio: 'ignore' });
    await ops.connections.forget('rb');
    await assert.rejects(queue(ops, 'rb'), /container skydeck-\S+ is gone from local \(removed outside Skydeck\)[^]*down the cluster and launch it again/);
  });
});
