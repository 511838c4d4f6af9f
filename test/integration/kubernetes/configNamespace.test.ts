// kubernetes.namespace from the Skydeck config file ($SKYDECK_CONFIG) is where the pods go, on
// the kit's real API server: a namespace made for this test (and deleted after) holds the pod.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { down, launch } from '../../../src/core/ops';
import { readHandle } from '../../../src/core/ops/clusterHandle';
import { getCluster } from '../../../src/core/state';
import { waitFor, writeTask, type TestOps } from '../ops/helpers';
import { kubeOps, SHORT_LAUNCH_GRACE } from './kubeOps';
import { kitProviderEnv, releaseKit, useKit, type Kit } from '../../support/k8sKit';

describe('kubernetes: kubernetes.namespace from the config file (the kit)', function () {
  this.timeout(10 * 60_000);
  let kit: Kit;
  let ops: TestOps;
  let core: k8s.CoreV1Api;
  let dir: string;
  const saved: Record<string, string | undefined> = {};
  const NS = 'k8sfaults-cfg';
  const NAME = 'k8sfaults-ns';

  before(async function () {
    kit = await useKit(this);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kit.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NS } } });
    // A pod needs the namespace's default ServiceAccount, which a controller makes.
    await waitFor('the default ServiceAccount', async () => (await core.listNamespacedServiceAccount({ namespace: NS })).items.some((s) => s.metadata?.name === 'default'), 60_000);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-k8sfaults-cfg-'));
    const cfg = path.join(dir, 'config.yaml');
    fs.writeFileSync(cfg, `kubernetes:\n  namespace: ${NS}\n  pod_config: {metadata: {labels: {team: k8sfaults}}}\n`);
    for (const [k, v] of Object.entries({ ...kitProviderEnv(kit), SKYDECK_CONFIG: cfg })) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    ops = await kubeOps(SHORT_LAUNCH_GRACE);
  });
  after(async () => {
    try {
      if (ops) await down(ops, NAME, { graceSeconds: 1 }).catch(() => undefined);
      await ops?.dispose();
    } finally {
      await core?.deleteNamespace({ name: NS }).catch(() => undefined);
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
      if (kit) await releaseKit();
    }
  });

  it('the pod is made in the configured namespace, with the pod_config label; down removes it there', async () => {
    const r = await launch(ops, { taskFile: writeTask(ops.workspaceRoot, 't.yaml', 'resources: {infra: k8s}\nrun: echo "in $(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace)"\n'), cluster: NAME, onOutput: () => undefined });
    assert.equal(r.final?.status, 'SUCCEEDED');
    const row = (await ops.store.read((db) => getCluster(db, NAME)))!;
    assert.equal(readHandle(row).kube?.namespace, NS);
    const pods = (await core.listNamespacedPod({ namespace: NS, labelSelector: `skydeck-cluster-uid=${row.uid}` })).items;
    assert.deepEqual(pods.map((p) => [p.metadata?.namespace, p.metadata?.labels?.team]), [[NS, 'k8sfaults']]);
    assert.deepEqual((await core.listNamespacedPod({ namespace: 'default', labelSelector: `skydeck-cluster-uid=${row.uid}` })).items, [], 'none in the context\'s namespace');
    assert.equal((await down(ops, NAME, { graceSeconds: 1 })).cleaned, true);
    assert.deepEqual((await core.listNamespacedPod({ namespace: NS, labelSelector: `skydeck-cluster-uid=${row.uid}` })).items, []);
  });
});
