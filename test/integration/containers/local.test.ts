// Issue 18 on the local cloud with a real podman: `image_id: docker:<image>` runs every job in
// one container per cluster, with the agent inside it; down removes the container.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cancel, down, exec, launch, logs, queue, status } from '../../../src/core/ops';
import { readHandle } from '../../../src/core/ops/clusterHandle';
import { testOps, TestOps, waitFor, writeTask } from '../ops/helpers';
import { containersOf, processesIn, requireTestImage } from '../../support/containers/testImage';

describe('containers on the local cloud (podman)', function () {
  this.timeout(240_000);
  let image: string;
  let ops: TestOps;
  before(function () {
    this.timeout(600_000);
    image = requireTestImage(this);
  });
  beforeEach(async () => {
    ops = await testOps();
  });
  afterEach(async () => {
    for (const n of ['box', 'box2']) await down(ops, n, { graceSeconds: 1, purge: true }).catch(() => undefined);
    await ops.dispose();
  });

  const uidOf = async (name: string) => (await status(ops)).find((s) => s.cluster.name === name)!.cluster.uid;
  const ctrOf = async (name: string) => readHandle((await status(ops)).find((s) => s.cluster.name === name)!.cluster).container!.name;

  it('launch → exec ×3 → queue → logs → cancel (nothing of the job left) → down (container gone)', async () => {
    const ws = ops.workspaceRoot;
    fs.mkdirSync(path.join(ws, 'proj'));
    fs.writeFileSync(path.join(ws, 'proj', 'data.txt'), 'from the workdir\n');
    const task = writeTask(ws, 'task.yaml', [
      'name: first', 'workdir: proj', `resources: {cloud: local, image_id: "docker:${image}"}`,
      'setup: echo "setup ran"', 'run: |', '  cat data.txt', '  echo "in $container"', '  test -e /run/.containerenv && echo inside',
    ].join('\n'));
    let out = '';
    const r = await launch(ops, { taskFile: task, cluster: 'box', onOutput: (d) => (out += d) });
    assert.equal(r.final?.status, 'SUCCEEDED', out);
    assert.equal(out, 'setup ran\nfrom the workdir\nin podman\ninside\n');
    assert.ok(ops.progressLines.some((l) => /local: image .* is on the node/.test(l)), ops.progressLines.join('\n'));
    const uid = await uidOf('box');
    const ctr = await ctrOf('box');
    assert.deepEqual(containersOf(uid), [ctr], 'one container, labelled with the cluster uid');

    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = writeTask(ws, `exec${i}.yaml`, `name: ex${i}\nsetup: echo NO-SETUP\nrun: ${i === 2 ? 'sleep 300 & sleep 301; echo never' : `printf 'exec ${i}\\000\\377\\n'`}\n`);
      ids.push((await exec(ops, { cluster: 'box', taskFile: t, detach: true })).jobId);
    }
    assert.deepEqual(ids, [2, 3, 4]);
    await waitFor('exec jobs 2 and 3', async () => (await queue(ops, 'box')).filter((j) => j.job_id <= 3).every((j) => j.status === 'SUCCEEDED'));
    const chunks: Buffer[] = [];
    await logs(ops, { cluster: 'box', jobId: 3, onOutput: (d) => chunks.push(Buffer.isBuffer(d) ? d : Buffer.from(d)) });
    assert.deepEqual(Buffer.concat(chunks), Buffer.from('exec 1\0\xff\n', 'latin1'), 'log bytes arrive exactly');

    await waitFor('job 4 running', async () => (await queue(ops, 'box')).find((j) => j.job_id === 4 && j.status === 'RUNNING'));
    assert.ok(processesIn(ctr).some((a) => a.includes('sleep 301')), 'the job runs in the container');
    assert.deepEqual((await cancel(ops, 'box', { jobIds: [4] }, 1)).cancelled, [4]);
    await waitFor('job 4 cancelled', async () => (await queue(ops, 'box')).find((j) => j.job_id === 4)?.status === 'CANCELLED');
    await waitFor('the job\'s processes gone', async () => !processesIn(ctr).some((a) => /sleep 30[01]/.test(a)));

    const d = await down(ops, 'box', { graceSeconds: 1 });
    assert.equal(d.cleaned, true);
    assert.ok(d.notes.some((n) => n.includes(`removed container ${ctr}`)), d.notes.join('\n'));
    assert.deepEqual(containersOf(uid), [], 'the container is gone');
    assert.equal(fs.existsSync(path.join(ws, '.skydeck', 'local', 'box')), false);
  });

  it('a node that needed its own limits starts with them at once next time (a hint in the Skydeck home); none is left where the defaults work', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-home-'));
    const before = process.env.SKYDECK_HOME;
    process.env.SKYDECK_HOME = home;
    try {
      const task = writeTask(ops.workspaceRoot, 'hint.yaml', `resources: {cloud: local, image_id: "docker:${image}"}\nrun: echo up\n`);
      const retried = () => ops.progressLines.some((l) => /retrying with the node's own limits/.test(l));
      const hint = path.join(home, 'container-own-limits-podman');
      const first = await launch(ops, { taskFile: task, cluster: 'box' });
      assert.equal(first.final?.status, 'SUCCEEDED');
      const neededOwn = retried();
      assert.equal(fs.existsSync(hint), neededOwn, `the hint is there exactly when the start needed the node's own limits: ${ops.progressLines.join('\n')}`);
      await down(ops, 'box', { graceSeconds: 1 });
      // Where the defaults worked, a planted hint must not break the start either.
      if (!neededOwn) fs.writeFileSync(hint, '');
      ops.progressLines.length = 0;
      const second = await launch(ops, { taskFile: task, cluster: 'box2' });
      assert.equal(second.final?.status, 'SUCCEEDED');
      assert.ok(!retried(), `no failing first try this time: ${ops.progressLines.join('\n')}`);
      assert.ok(fs.existsSync(hint), 'the hint that worked is kept');
    } finally {
      if (before === undefined) delete process.env.SKYDECK_HOME;
      else process.env.SKYDECK_HOME = before;
    }
  });
});
