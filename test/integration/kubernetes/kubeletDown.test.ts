// The kit's kubelet stopped mid-job: every call that needs the pod (queue, logs, a refresh's
// agent status) fails with an error naming the pod, its node and the silent kubelet, and
// nothing is deleted or flipped. The kubelet is then started again exactly as it was (after
// hook: the shared kit stays healthy even when the test fails); the job ran on and cancels.
import * as assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { cancel, down, launch, logs, queue, status } from '../../../src/core/ops';
import { getCluster } from '../../../src/core/state';
import { waitFor, writeTask, type TestOps } from '../ops/helpers';
import { kubeOps, SHORT_LAUNCH_GRACE } from './kubeOps';
import { kitClient, kitProviderEnv, releaseKit, setEnv, useKit, type Kit } from '../../support/k8sKit';
import { stopKubelet, type StoppedKubelet } from '../../support/kitKubelet';

describe('kubernetes: the kubelet stops mid-job (the kit)', function () {
  this.timeout(10 * 60_000);
  let kit: Kit;
  let ops: TestOps;
  let core: k8s.CoreV1Api;
  let stopped: StoppedKubelet | undefined;
  let restoreEnv: (() => void) | undefined;
  const NAME = 'k8sfaults-kubelet';

  before(async function () {
    kit = await useKit(this);
    restoreEnv = setEnv(kitProviderEnv(kit));
    core = kitClient(kit, k8s.CoreV1Api);
    // The silent kubelet, not the launch grace: the down at the end need not idle out the minute.
    ops = await kubeOps(SHORT_LAUNCH_GRACE);
  });
  after(async () => {
    // Restart first: the down below and every later test file need a working node.
    try {
      await stopped?.restart();
    } finally {
      await down(ops, NAME, { graceSeconds: 1 }).catch(() => undefined);
      await ops.dispose();
      restoreEnv?.();
      if (kit) await releaseKit();
    }
  });

  it('queue, logs and refresh fail naming the pod, node and kubelet; nothing is deleted; after the restart the job runs on and cancels', async () => {
    const task = writeTask(ops.workspaceRoot, 'long.yaml', 'name: long\nresources: {infra: k8s}\nrun: echo started; sleep 600\n');
    const r = await launch(ops, { taskFile: task, cluster: NAME, detach: true });
    await waitFor('the job running', async () => (await queue(ops, NAME)).find((j) => j.job_id === r.jobId && j.status === 'RUNNING'), 60_000);
    const row = (await ops.store.read((db) => getCluster(db, NAME)))!;
    const pod = `skydeck-${row.uid.toLowerCase()}-0`;

    stopped = await stopKubelet(kit);
    // A fresh connection: the agent channel the launch opened died with the kubelet.
    await ops.connections.forget(NAME);
    const silent = new RegExp(`cannot exec in pod ${pod} .*: the kubelet of node skydeck-node is not answering`);
    await assert.rejects(queue(ops, NAME), silent);
    await assert.rejects(logs(ops, { cluster: NAME, jobId: r.jobId, follow: false, onOutput: () => undefined }), silent);
    const st = (await status(ops, { refresh: true })).find((s) => s.cluster.name === NAME)!;
    assert.match(st.error ?? '', silent, JSON.stringify(st));
    assert.equal(st.removed, undefined);
    const after = (await ops.store.read((db) => getCluster(db, NAME)))!;
    assert.deepEqual([after.status, after.flags, after.uid], ['UP', null, row.uid], 'the row is as it was');
    assert.deepEqual((await core.listNamespacedPod({ namespace: 'default', labelSelector: `skydeck-cluster-uid=${row.uid}` })).items.map((p) => [p.metadata?.name, p.metadata?.deletionTimestamp]), [[pod, undefined]], 'the pod stays, not being deleted');

    await stopped.restart();
    await waitFor('the job still running', async () => (await queue(ops, NAME).catch(() => [])).find((j) => j.job_id === r.jobId && j.status === 'RUNNING'), 60_000);
    assert.deepEqual((await cancel(ops, NAME, { jobIds: [r.jobId] }, 1)).cancelled, [r.jobId]);
    await waitFor('the job cancelled', async () => (await queue(ops, NAME)).find((j) => j.job_id === r.jobId)?.status === 'CANCELLED', 60_000);
  });
});
