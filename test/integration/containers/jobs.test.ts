// Issue 18: job semantics inside a container do not weaken — daemons and TERM-trapping jobs are
// cancelled completely, jobs run side by side, a killed driver is FAILED_DRIVER.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cancel, down, exec, launch, queue, status } from '../../../src/core/ops';
import { readHandle } from '../../../src/core/ops/clusterHandle';
import { testOps, TestOps, waitFor, writeTask } from '../ops/helpers';
import { processesIn, requireTestImage } from '../../support/containers/testImage';

describe('jobs in a container cluster (podman)', function () {
  this.timeout(240_000);
  let ops: TestOps;
  let ctr: string;
  before(async function () {
    this.timeout(600_000);
    const image = requireTestImage(this);
    ops = await testOps();
    const t = writeTask(ops.workspaceRoot, 'up.yaml', `resources: {cloud: local, image_id: "docker:${image}"}\nrun: echo up\n`);
    const r = await launch(ops, { taskFile: t, cluster: 'jobs' });
    assert.equal(r.final?.status, 'SUCCEEDED');
    ctr = readHandle((await status(ops))[0].cluster).container!.name;
  });
  after(async () => {
    if (!ops) return;
    await down(ops, 'jobs', { graceSeconds: 1, purge: true }).catch(() => undefined);
    await ops.dispose();
  });

  const submit = async (name: string, run: string) => {
    const t = writeTask(ops.workspaceRoot, `${name}.yaml`, `name: ${name}\nrun: |\n${run.split('\n').map((l) => `  ${l}`).join('\n')}\n`);
    return (await exec(ops, { cluster: 'jobs', taskFile: t, detach: true })).jobId;
  };
  const jobRow = async (id: number) => (await queue(ops, 'jobs')).find((j) => j.job_id === id)!;
  const running = (id: number) => waitFor(`job ${id} running`, async () => (await jobRow(id)).status === 'RUNNING', 60_000);
  const ps = () => processesIn(ctr);

  it('cancel kills a job\'s daemons (own session, nohup, double fork) and nothing else in the container', async () => {
    const keep = await submit('keep', 'sleep 611');
    // (The test image has no setsid binary: python3 makes the new session.)
    const id = await submit('daemons', 'python3 -c "import os; os.setsid(); os.execvp(\'sleep\', [\'sleep\', \'601\'])" &\n(nohup sleep 602 >/dev/null 2>&1 &)\nsh -c "sleep 603 &"\nsleep 604');
    await running(id);
    await running(keep);
    await waitFor('the daemons started', async () => [601, 602, 603, 604].every((n) => ps().some((a) => a.includes(`sleep ${n}`))), 60_000)
      .catch((e: Error) => { throw new Error(`${e.message}; in the container: ${ps().join(' | ')}`); });
    assert.deepEqual((await cancel(ops, 'jobs', { jobIds: [id] }, 1)).cancelled, [id]);
    await waitFor('every process of the job gone', async () => !ps().some((a) => /sleep 60[1-4]/.test(a)));
    assert.equal((await jobRow(id)).status, 'CANCELLED');
    assert.ok(ps().some((a) => a.includes('sleep 611')), 'the other job is untouched');
    assert.equal((await jobRow(keep)).status, 'RUNNING');
    await cancel(ops, 'jobs', { jobIds: [keep] }, 1);
  });

  it('a job that traps SIGTERM gets the grace, then SIGKILL', async () => {
    const id = await submit('stubborn', 'trap "echo got TERM" TERM\nwhile :; do sleep 0.2; done');
    await running(id);
    await cancel(ops, 'jobs', { jobIds: [id] }, 1);
    await waitFor('the trapping job gone', async () => (await jobRow(id)).status === 'CANCELLED' && !ps().some((a) => a.includes('got TERM')), 60_000);
  });

  it('two jobs run side by side in the one container', async () => {
    const a = await submit('a', 'touch /tmp/a-here; while [ ! -e /tmp/b-here ]; do sleep 0.1; done; echo a done');
    const b = await submit('b', 'touch /tmp/b-here; while [ ! -e /tmp/a-here ]; do sleep 0.1; done; echo b done');
    await waitFor('both succeeded', async () => (await jobRow(a)).status === 'SUCCEEDED' && (await jobRow(b)).status === 'SUCCEEDED', 60_000);
  });

  it('a driver killed with SIGKILL is FAILED_DRIVER, and its job\'s processes go', async () => {
    const id = await submit('victim', 'sleep 621');
    await running(id);
    const pid = (await jobRow(id)).driver_pid;
    assert.ok(typeof pid === 'number' && pid > 1, `driver pid ${pid}`);
    execFileSync('podman', ['exec', ctr, '/bin/sh', '-c', 'kill -9 "$1"', 'sh', String(pid)]);
    const row = await waitFor('FAILED_DRIVER', async () => { const r = await jobRow(id); return r.status === 'FAILED_DRIVER' && r; }, 60_000);
    assert.match(String(row.reason), /driver/);
    await waitFor('the job\'s sleep gone', async () => !ps().some((a) => a.includes('sleep 621')), 60_000);
  });
});
