// Multi-node on the kit's real cluster: a pod per node, the head's agent reaching the worker
// pods through the exec API with its own ServiceAccount (kexec.py), gang jobs with the VM
// clouds' per-rank variables, a cancel that leaves no process in any pod, a down that leaves
// neither pods nor the head's ServiceAccount/Role/RoleBinding.
import * as assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { cancel, down, exec, launch, logs, queue } from '../../../src/core/ops';
import { readHandle } from '../../../src/core/ops/clusterHandle';
import { getCluster } from '../../../src/core/state';
import { waitFor, writeTask, type TestOps } from '../ops/helpers';
import { kubeOps, SHORT_LAUNCH_GRACE } from './kubeOps';
import { kitProviderEnv, releaseKit, setEnv, useKit, type Kit } from '../../support/k8sKit';

const NAME = 'k8smulti-gang';

describe('kubernetes multi-node on the kit (one pod per node, workers reached by exec)', function () {
  this.timeout(10 * 60_000);
  let kit: Kit;
  let ops: TestOps;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  let rbac: k8s.RbacAuthorizationV1Api;
  let restoreEnv: (() => void) | undefined;

  before(async function () {
    kit = await useKit(this);
    restoreEnv = setEnv(kitProviderEnv(kit));
    kc = new k8s.KubeConfig();
    kc.loadFromFile(kit.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  });
  after(async () => {
    restoreEnv?.();
    if (kit) await releaseKit();
  });
  beforeEach(async () => {
    ops = await kubeOps(SHORT_LAUNCH_GRACE);
  });
  afterEach(async () => {
    await down(ops, NAME, { graceSeconds: 1 }).catch(() => undefined);
    await ops.dispose();
  });

  const podsOf = async (uid: string) => (await core.listNamespacedPod({ namespace: 'default', labelSelector: `skydeck-cluster-uid=${uid}` })).items;
  const accessOf = async (uid: string) => {
    const sel = { namespace: 'default', labelSelector: `skydeck-cluster-uid=${uid}` };
    return [
      ...(await core.listNamespacedServiceAccount(sel)).items.map((x) => `sa/${x.metadata!.name}`),
      ...(await rbac.listNamespacedRole(sel)).items.map((x) => `role/${x.metadata!.name}`),
      ...(await rbac.listNamespacedRoleBinding(sel)).items.map((x) => `rolebinding/${x.metadata!.name}`),
    ];
  };
  const inPod = async (pod: string, cmd: string) => {
    let out = '';
    const w = new Writable({ write(c: Buffer, _e, cb) { out += c; cb(); } });
    await new Promise<void>((resolve, reject) => {
      new k8s.Exec(kc).exec('default', pod, 'node', ['/bin/sh', '-c', cmd], w, null, null, false, () => resolve()).catch(reject);
    });
    return out;
  };
  const rankLog = async (jobId: number, rank: number) => {
    let out = '';
    await logs(ops, { cluster: NAME, jobId, rank, onOutput: (d) => (out += d) });
    return out;
  };
  /** Launches 3 pods (a first gang job), then marks each pod with its name (pods share the host's hostname). */
  const launch3 = async () => {
    const task = writeTask(ops.workspaceRoot, 'first.yaml', 'name: first\nnum_nodes: 3\nresources: {infra: k8s}\nrun: echo "first $SKYPILOT_NODE_RANK"\n');
    let out = '';
    const r = await launch(ops, { taskFile: task, cluster: NAME, onOutput: (d) => (out += d) });
    assert.equal(r.final?.status, 'SUCCEEDED', out);
    const row = (await ops.store.read((db) => getCluster(db, NAME)))!;
    for (const p of readHandle(row).kube!.pods) await inPod(p, `echo ${p} > /tmp/k8smulti-pod`);
    return { row, jobId: r.jobId };
  };
  const envJob = async () => {
    const tricky = `it's "$(touch /tmp/pwned)" \`x\``;
    const task = writeTask(ops.workspaceRoot, 'gang.yaml', [
      `name: "gang 'quoted' $(x)"`, 'num_nodes: 3', 'envs: {TRICKY: null}',
      'run: |',
      '  echo "rank=$SKYPILOT_NODE_RANK of $SKYPILOT_NUM_NODES skydeck=$SKYDECK_NODE_RANK of $SKYDECK_NUM_NODES pod=$(cat /tmp/k8smulti-pod)"',
      '  echo "ips=$(printf %s "$SKYPILOT_NODE_IPS" | tr "\\n" ,) sdips=$(printf %s "$SKYDECK_NODE_IPS" | tr "\\n" ,)"',
      '  printf "%s\\n" "$TRICKY"',
    ].join('\n'));
    const r = await exec(ops, { cluster: NAME, taskFile: task, envs: { TRICKY: tricky }, detach: true });
    await waitFor('the env job ends', async () => (await queue(ops, NAME)).find((x) => x.job_id === r.jobId && !['PENDING', 'SETTING_UP', 'RUNNING'].includes(x.status)), 120_000);
    return { jobId: r.jobId, tricky, job: (await queue(ops, NAME)).find((x) => x.job_id === r.jobId)! };
  };

  it('launch num_nodes: 3 → a gang job sees each rank\'s env → a cancelled gang leaves no process in any pod → down leaves nothing', async () => {
    const { row } = await launch3();
    const { jobId, tricky, job } = await envJob();
    assert.equal(job.status, 'SUCCEEDED', JSON.stringify(job));
    const pods = (await podsOf(row.uid)).map((p) => p.metadata!.name!).sort();
    assert.equal(pods.length, 3);
    assert.deepEqual(readHandle(row).kube?.pods, pods, 'head first, then the workers in rank order');
    assert.deepEqual((await accessOf(row.uid)).sort(), [`role/skydeck-${row.uid}`, `rolebinding/skydeck-${row.uid}`, `sa/skydeck-${row.uid}`]);
    const ips = (await podsOf(row.uid)).sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!)).map((p) => p.status!.podIP).join(',');
    for (const rank of [0, 1, 2]) {
      const log = await rankLog(jobId, rank);
      assert.ok(log.includes(`rank=${rank} of 3 skydeck=${rank} of 3 pod=${pods[rank]}\n`), `rank ${rank}: ${log}`);
      assert.ok(log.includes(`ips=${ips} sdips=${ips}\n`), `rank ${rank}: ${log}`);
      assert.ok(log.includes(`${tricky}\n`), `rank ${rank}: ${log}`);
    }
    // Only the head holds an API token; a worker has none to pass on.
    assert.match(await inPod(pods[0], 'ls /var/run/secrets/kubernetes.io/serviceaccount/'), /token/);
    assert.equal(await inPod(pods[1], 'ls /var/run/secrets/kubernetes.io/serviceaccount/ >/dev/null 2>&1 && echo has || echo none'), 'none\n');

    // The head's exec client with its own token: a pod outside the cluster is refused (RBAC by
    // name), as a clear failure with ssh's code 255; a pod name with quotes stays one word.
    const loc = await ops.connections.client(row).connect();
    const target = (pod: string) => JSON.stringify({ namespace: 'default', pod, container: 'node', server: readHandle(row).kube!.server });
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const kexec = (pod: string) => inPod(pods[0], `${q(loc.python)} -E -S ${q(loc.entry)} _kexec ${q(target(pod))} -- sh -c 'echo "in $(cat /tmp/k8smulti-pod)"; exit 3' 2>&1; echo "rc=$?"`);
    assert.equal(await kexec(pods[2]), `in ${pods[2]}\nrc=3\n`);
    for (const other of ['someone-else', `it's "$(x)"`]) assert.match(await kexec(other), /^skydeck: cannot exec in pod .*forbidden.*\nrc=255\n$/s);

    const long = writeTask(ops.workspaceRoot, 'long.yaml', 'name: long\nnum_nodes: 3\nrun: echo "up $SKYPILOT_NODE_RANK"; sleep 313 & sleep 313; wait\n');
    const j = (await exec(ops, { cluster: NAME, taskFile: long, envs: {}, detach: true })).jobId;
    await waitFor('every rank of the long job running', async () => {
      for (const p of pods) if (!/sleep 313/.test(await inPod(p, 'ps -eo args'))) return false;
      return true;
    }, 120_000);
    const c = await cancel(ops, NAME, { jobIds: [j] }, 1);
    assert.deepEqual(c.cancelled, [j]);
    await waitFor('the long job cancelled', async () => (await queue(ops, NAME)).find((x) => x.job_id === j)?.status === 'CANCELLED', 60_000);
    await waitFor('no sleep 313 left in any pod', async () => {
      for (const p of pods) if (/sleep 313/.test(await inPod(p, 'ps -eo args'))) return false;
      return true;
    }, 60_000);

    const d = await down(ops, NAME, { graceSeconds: 1 });
    assert.equal(d.cleaned, true);
    assert.deepEqual(await podsOf(row.uid), [], 'all three pods are gone');
    await waitFor('the ServiceAccount, Role and RoleBinding gone', async () => (await accessOf(row.uid)).length === 0, 60_000);
  });

  it('a rank\'s exit code reaches the head; a worker pod deleted mid-job fails the job naming that pod, and its ownerless access goes with the head', async () => {
    const { row } = await launch3();
    const pods = readHandle(row).kube!.pods;
    const fail = writeTask(ops.workspaceRoot, 'fail.yaml', 'name: fail\nnum_nodes: 3\nrun: if [ "$SKYPILOT_NODE_RANK" = 2 ]; then exit 7; fi; sleep 300\n');
    const f = (await exec(ops, { cluster: NAME, taskFile: fail, envs: {}, detach: true })).jobId;
    await waitFor('the failing job ends', async () => (await queue(ops, NAME)).find((x) => x.job_id === f && !['PENDING', 'SETTING_UP', 'RUNNING'].includes(x.status)), 120_000);
    const fj = (await queue(ops, NAME)).find((x) => x.job_id === f)!;
    assert.equal(fj.status, 'FAILED');
    assert.match(fj.reason ?? '', new RegExp(`^rank 2 \\(worker node 2 \\(pod ${pods[2]}\\)\\) exited with code 7`));

    const long = writeTask(ops.workspaceRoot, 'long.yaml', 'name: long\nnum_nodes: 3\nrun: sleep 600\n');
    const j = (await exec(ops, { cluster: NAME, taskFile: long, envs: {}, detach: true })).jobId;
    await waitFor('the long job running on worker 1', async () => /sleep 600/.test(await inPod(pods[1], 'ps -eo args')), 120_000);
    await core.deleteNamespacedPod({ name: pods[1], namespace: 'default', gracePeriodSeconds: 0 });
    await waitFor('the job fails', async () => (await queue(ops, NAME)).find((x) => x.job_id === j && x.status !== 'RUNNING'), 120_000);
    const lj = (await queue(ops, NAME)).find((x) => x.job_id === j)!;
    assert.equal(lj.status, 'FAILED_DRIVER', JSON.stringify(lj));
    assert.match(lj.reason ?? '', new RegExp(`rank 1 lost: worker node 1 \\(pod ${pods[1]}\\) stopped answering during run`));

    // The head's access is owned by the head pod: the garbage collector takes it with it.
    await core.deleteNamespacedPod({ name: pods[0], namespace: 'default', gracePeriodSeconds: 0 });
    await waitFor('the head\'s ServiceAccount, Role and RoleBinding collected', async () => (await accessOf(row.uid)).length === 0, 90_000);
  });
});
