// A head pod deleted from outside Skydeck (kubectl delete, an eviction): a refresh past the
// launch grace window must not keep the row UP. Inside the grace it becomes INIT and the job
// FAILED_DRIVER; past it (an injected clock, ops.clock, not a minute's sleep) it is removed.
import * as assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { realClock } from '../../../src/core/provision/clock';
import { down, launch, queue, status } from '../../../src/core/ops';
import { getCluster, listJobs } from '../../../src/core/state';
import { waitFor, writeTask, type TestOps } from '../ops/helpers';
import { kubeOps } from './kubeOps';
import { kitClient, kitProviderEnv, releaseKit, setEnv, useKit, type Kit } from '../../support/k8sKit';

describe('kubernetes: a head pod deleted from outside (the kit)', function () {
  this.timeout(10 * 60_000);
  let kit: Kit;
  let ops: TestOps;
  let core: k8s.CoreV1Api;
  let restoreEnv: (() => void) | undefined;
  const NAME = 'k8sfaults-gone';

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
    ops = await kubeOps();
  });
  afterEach(async () => {
    ops.clock = undefined;
    await down(ops, NAME, { graceSeconds: 1 }).catch(() => undefined);
    await ops.dispose();
  });

  it('head pod force-deleted mid-job: a refresh marks the cluster INIT and the job FAILED_DRIVER; past the grace the row goes', async () => {
    const task = writeTask(ops.workspaceRoot, 'long.yaml', 'name: long\nresources: {infra: k8s}\nrun: echo started; sleep 600\n');
    const r = await launch(ops, { taskFile: task, cluster: NAME, detach: true });
    await waitFor('the job running', async () => (await queue(ops, NAME)).find((j) => j.job_id === r.jobId && j.status === 'RUNNING'), 60_000);
    const row = (await ops.store.read((db) => getCluster(db, NAME)))!;
    const pod = `skydeck-${row.uid.toLowerCase()}-0`;
    // Forced (grace 0), as `kubectl delete --force` or a node controller does: the object goes
    // at once. (A graceful delete sits in Terminating on the kit ~45 s, read as 'unknown'.)
    await core.deleteNamespacedPod({ name: pod, namespace: 'default', gracePeriodSeconds: 0 });
    await waitFor('the pod gone', async () => {
      try {
        await core.readNamespacedPod({ name: pod, namespace: 'default' });
        return false;
      } catch {
        return true;
      }
    }, 60_000);
    // At once (inside the launch grace window): never UP again; the job's driver is gone.
    const st = (await status(ops, { refresh: true })).find((x) => x.cluster.name === NAME)!;
    assert.equal(st.cluster.status, 'INIT', JSON.stringify(st));
    assert.match(st.cluster.last_error ?? '', new RegExp(`head instance ${pod} is gone`));
    const jobs = await ops.store.read((db) => listJobs(db, row.uid));
    assert.deepEqual(jobs.map((j) => [j.job_id, j.status]), [[r.jobId, 'FAILED_DRIVER']]);
    assert.match(jobs[0].reason ?? '', /is gone/);
    await assert.rejects(queue(ops, NAME), new RegExp(`${NAME} is INIT \\(last error: head instance ${pod} is gone`));
    // Two minutes on (an injected clock, not a sleep): past the grace the row goes, with proof.
    ops.clock = { now: () => Date.now() + 120_000, sleep: realClock.sleep };
    const later = (await status(ops, { refresh: true })).find((x) => x.cluster.name === NAME)!;
    assert.equal(later.removed, true, JSON.stringify(later));
    assert.equal(await ops.store.read((db) => getCluster(db, NAME)), undefined);
  });
});
