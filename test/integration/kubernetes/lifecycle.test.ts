// Kubernetes end to end on the kit's real cluster: a pod per node, the agent in the head pod
// reached through the API server's exec stream, and a down that proves the pods gone.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { cancel, down, exec, launch, logs, queue, status, stop } from '../../../src/core/ops';
import { readHandle } from '../../../src/core/ops/clusterHandle';
import { getCluster } from '../../../src/core/state';
import { waitFor, writeTask, type TestOps } from '../ops/helpers';
import { kubeOps, SHORT_LAUNCH_GRACE } from './kubeOps';
import { kitClient, kitProviderEnv, releaseKit, setEnv, useKit, type Kit } from '../../support/k8sKit';

describe('kubernetes on a real single-node cluster (the kit)', function () {
  this.timeout(10 * 60_000);
  let kit: Kit;
  let ops: TestOps;
  let core: k8s.CoreV1Api;
  let restoreEnv: (() => void) | undefined;

  before(async function () {
    kit = await useKit(this);
    restoreEnv = setEnv(kitProviderEnv(kit));
    core = kitClient(kit, k8s.CoreV1Api);
  });
  after(async () => {
    restoreEnv?.();
    if (kit) await releaseKit();
  });
  beforeEach(async () => {
    ops = await kubeOps(SHORT_LAUNCH_GRACE);
  });
  afterEach(async () => {
    await down(ops, 'kube', { graceSeconds: 1 }).catch(() => undefined);
    await ops.dispose();
  });

  const podsOf = async (uid: string) => (await core.listNamespacedPod({ namespace: 'default', labelSelector: `skydeck-cluster-uid=${uid}` })).items;
  const inPod = async (pod: string, cmd: string) => {
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(kit.kubeconfig);
      const w = new (require('node:stream').Writable)({ write(c: Buffer, _e: unknown, cb: () => void) { out += c; cb(); } });
      new k8s.Exec(kc).exec('default', pod, 'node', ['/bin/sh', '-c', cmd], w, null, null, false, () => resolve()).catch(reject);
    });
    return out;
  };

  it('launch → exec ×3 → queue → logs → cancel (no process left) → down (pods gone)', async () => {
    const ws = ops.workspaceRoot;
    fs.mkdirSync(path.join(ws, 'proj'));
    fs.writeFileSync(path.join(ws, 'proj', 'data.txt'), 'from the workdir\n');
    const task = writeTask(ws, 'task.yaml', [
      'name: first', 'workdir: proj', 'resources: {infra: k8s}', 'envs: {WHO: null}',
      'setup: echo "setup ran"', 'run: |', '  cat data.txt', '  echo "hi $WHO rank $SKYPILOT_NODE_RANK"',
    ].join('\n'));
    let out = '';
    const r = await launch(ops, { taskFile: task, cluster: 'kube', envs: { WHO: 'k8s "$(quoted)"' }, onOutput: (d) => (out += d) });
    assert.equal(r.final?.status, 'SUCCEEDED', out);
    assert.match(out, /setup ran\nfrom the workdir\nhi k8s "\$\(quoted\)" rank 0\n/);
    const row = (await ops.store.read((db) => getCluster(db, 'kube')))!;
    assert.equal(row.provider, 'kubernetes');
    assert.ok(row.account?.startsWith('https://127.0.0.1:'), `the account is the API server: ${row.account}`);
    const pods = await podsOf(row.uid);
    assert.equal(pods.length, 1);
    assert.deepEqual(readHandle(row).kube?.pods, [pods[0].metadata!.name]);

    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = writeTask(ws, `exec${i}.yaml`, `name: ex${i}\nrun: echo exec ${i}; ${i === 2 ? 'sleep 300 & sleep 300' : 'true'}\n`);
      ids.push((await exec(ops, { cluster: 'kube', taskFile: t, envs: {}, detach: true })).jobId);
    }
    assert.deepEqual(ids, [2, 3, 4]);
    await waitFor('exec jobs 2 and 3 to finish', async () => {
      const q = await queue(ops, 'kube');
      return q.filter((j) => j.job_id <= 3).every((j) => j.status === 'SUCCEEDED') && q;
    }, 60_000);
    let log2 = '';
    const l = await logs(ops, { cluster: 'kube', jobId: 2, onOutput: (d) => (log2 += d) });
    assert.equal(log2, 'exec 0\n');
    assert.equal(l.final?.status, 'SUCCEEDED');

    await waitFor('job 4 running', async () => (await queue(ops, 'kube')).find((j) => j.job_id === 4 && j.status === 'RUNNING'), 60_000);
    const c = await cancel(ops, 'kube', { jobIds: [4] }, 1);
    assert.deepEqual(c.cancelled, [4]);
    await waitFor('job 4 cancelled', async () => (await queue(ops, 'kube')).find((j) => j.job_id === 4)?.status === 'CANCELLED', 60_000);
    await waitFor('no sleep 300 left in the pod', async () => !/sleep 300/.test(await inPod(pods[0].metadata!.name!, 'ps -eo args')), 30_000);

    const st = await status(ops, { refresh: true });
    assert.equal(st[0].cluster.status, 'UP');
    const d = await down(ops, 'kube', { graceSeconds: 1 });
    assert.equal(d.cleaned, true);
    assert.equal(d.uid, row.uid);
    assert.deepEqual(await podsOf(row.uid), [], 'the pods are gone, not just terminating');
    assert.deepEqual(await status(ops), []);
  });

  it('stop is refused before anything changes on the row (pods have no stopped state), fast, naming down and autostop --down', async () => {
    const task = writeTask(ops.workspaceRoot, 'long.yaml', 'name: long\nresources: {infra: k8s}\nrun: echo started; sleep 600\n');
    const r = await launch(ops, { taskFile: task, cluster: 'kube', detach: true });
    await waitFor('the job running', async () => (await queue(ops, 'kube')).find((j) => j.job_id === r.jobId && j.status === 'RUNNING'), 60_000);
    const before = (await ops.store.read((db) => getCluster(db, 'kube')))!;
    await assert.rejects(stop(ops, 'kube'), /kube runs on kubernetes: Kubernetes clusters cannot be stopped \(pods have no stopped state\): use "down"/);
    const after = (await ops.store.read((db) => getCluster(db, 'kube')))!;
    assert.deepEqual([after.status, after.flags, after.updated_at], ['UP', null, before.updated_at], 'a refused stop changes nothing on the row');
    assert.equal((await queue(ops, 'kube')).find((j) => j.job_id === r.jobId)?.status, 'RUNNING', 'and the job runs on');
  });
});
