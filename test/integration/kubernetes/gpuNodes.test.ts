// GPU placement on the kit's real node: the node is labelled as GKE labels a T4 node and
// advertises two nvidia.com/gpu (an extended resource, as the device plugin would; no device
// is behind it, and the job does not need one). A T4 task lands there through the node's own
// label; an A100 task and a T4:4 task are refused before any pod exists.
import * as assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { down, launch } from '../../../src/core/ops';
import { readHandle } from '../../../src/core/ops/clusterHandle';
import { getCluster } from '../../../src/core/state';
import { writeTask, type TestOps } from '../ops/helpers';
import { kubeOps, SHORT_LAUNCH_GRACE } from './kubeOps';
import { kitClient, kitProviderEnv, releaseKit, setEnv, useKit, type Kit } from '../../support/k8sKit';

const LABEL = 'cloud.google.com/gke-accelerator';
const GPU = 'nvidia.com~1gpu';
const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);

describe('kubernetes: GPU nodes found by their labels (the kit)', function () {
  this.timeout(6 * 60_000);
  let kit: Kit;
  let ops: TestOps;
  let core: k8s.CoreV1Api;
  let nodeName = '';
  let restoreEnv: (() => void) | undefined;

  /** Waits until the scheduler's view has the node's GPUs (allocatable), or takes them away. */
  async function setGpus(n: number | undefined) {
    const node = await core.readNode({ name: nodeName });
    const has = node.status?.capacity?.['nvidia.com/gpu'] !== undefined;
    const ops = n === undefined
      ? (has ? [{ op: 'remove', path: `/status/capacity/${GPU}` }] : [])
      : [{ op: 'add', path: `/status/capacity/${GPU}`, value: String(n) }];
    if (ops.length) await core.patchNodeStatus({ name: nodeName, body: ops }, jsonPatch);
    for (let i = 0; i < 120; i++) {
      const a = (await core.readNode({ name: nodeName })).status?.allocatable?.['nvidia.com/gpu'];
      if (n === undefined ? a === undefined : a === String(n)) return;
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.fail(`the node's allocatable nvidia.com/gpu never became ${n}`);
  }

  before(async function () {
    kit = await useKit(this);
    restoreEnv = setEnv(kitProviderEnv(kit));
    core = kitClient(kit, k8s.CoreV1Api);
    nodeName = (await core.listNode()).items[0].metadata!.name!;
    await core.patchNode({ name: nodeName, body: [{ op: 'add', path: `/metadata/labels/${LABEL.replace('/', '~1')}`, value: 'nvidia-tesla-t4' }] }, jsonPatch);
    await setGpus(2);
  });
  after(async () => {
    // The node goes back as it was, also when a test failed.
    if (nodeName) {
      await core.patchNode({ name: nodeName, body: [{ op: 'remove', path: `/metadata/labels/${LABEL.replace('/', '~1')}` }] }, jsonPatch).catch(() => undefined);
      await setGpus(undefined).catch(() => undefined);
    }
    restoreEnv?.();
    if (kit) await releaseKit();
  });
  beforeEach(async () => {
    // GPU placement, not the launch grace: a down after a launch need not idle out the minute.
    ops = await kubeOps(SHORT_LAUNCH_GRACE);
  });
  afterEach(async () => {
    for (const c of ['gput4', 'gpua100', 'gpumany']) await down(ops, c, { graceSeconds: 1 }).catch(() => undefined);
    await ops.dispose();
  });

  it('a T4 task goes to the node GKE labelled nvidia-tesla-t4, holding one of its GPUs', async () => {
    const task = writeTask(ops.workspaceRoot, 't4.yaml', 'resources: {infra: k8s, accelerators: T4:1}\nrun: echo on-a-t4-node cuda=$CUDA_VISIBLE_DEVICES\n');
    let out = '';
    const r = await launch(ops, { taskFile: task, cluster: 'gput4', onOutput: (d) => (out += d) });
    assert.equal(r.final?.status, 'SUCCEEDED', out);
    // The pod's GPU was declared to the agent (no nvidia-smi in the pod), which hands it to the job.
    assert.match(out, /on-a-t4-node cuda=0\n/);
    const row = (await ops.store.read((db) => getCluster(db, 'gput4')))!;
    const uid = row.uid;
    assert.equal(readHandle(row).kube?.pods.length, 1);
    const [pod] = (await core.listNamespacedPod({ namespace: 'default', labelSelector: `skydeck-cluster-uid=${uid}` })).items;
    assert.deepEqual(pod.spec?.nodeSelector, { [LABEL]: 'nvidia-tesla-t4' });
    assert.equal(pod.spec?.containers[0].resources?.limits?.['nvidia.com/gpu'], '1');
    assert.equal(pod.spec?.nodeName, nodeName);
  });

  it('a GPU type no node has, or more GPUs than a node offers, is refused before any pod is made', async () => {
    const a100 = writeTask(ops.workspaceRoot, 'a100.yaml', 'resources: {infra: k8s, accelerators: A100:1}\nrun: echo never\n');
    await assert.rejects(launch(ops, { taskFile: a100, cluster: 'gpua100' }), (e: Error) => {
      assert.match(e.message, /no schedulable node of context "[^"]+" has a A100 GPU \(GPU types labelled there: nvidia-tesla-t4 \(2 GPUs\)\)/);
      return true;
    });
    const many = writeTask(ops.workspaceRoot, 'many.yaml', 'resources: {infra: k8s, accelerators: T4:4}\nrun: echo never\n');
    await assert.rejects(launch(ops, { taskFile: many, cluster: 'gpumany' }), /T4:4 needs 4 GPUs on one node .* offer at most 2/);
    // Nothing was made for either: no pod carries Skydeck's labels beyond other tests' own.
    const pods = (await core.listNamespacedPod({ namespace: 'default', labelSelector: 'skydeck-cluster-uid' })).items;
    assert.deepEqual(pods.filter((p) => /gpua100|gpumany/.test(p.metadata?.annotations?.['skydeck-cluster'] ?? '')).map((p) => p.metadata?.name), []);
  });
});
