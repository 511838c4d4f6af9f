// Autodown on Kubernetes (the kit): pods cannot be stopped, so autostop there is --down only.
// The head pod of a launch with --down gets its own ServiceAccount, allowed get and delete on
// exactly its cluster's pods; once idle, its agent deletes the pods (workers first) and a
// refresh finds the cluster gone. Without --down at launch the head has no such identity, and
// `autostop --down` later says to relaunch.
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { down, launch, setAutostop, status } from '../../../src/core/ops';
import { getCluster } from '../../../src/core/state';
import { createKubeTransport } from '../../../src/core/clouds/kubernetes';
import { readHandle } from '../../../src/core/ops/clusterHandle';
import { realClock } from '../../../src/core/provision/clock';
import { graceStart, providerHandle } from '../../../src/core/provision/handle';
import { waitFor, writeTask, type TestOps } from '../ops/helpers';
import { kubeOps, SHORT_LAUNCH_GRACE } from './kubeOps';
import { kitClient, kitProviderEnv, releaseKit, setEnv, useKit, type Kit } from '../../support/k8sKit';

describe('kubernetes: autodown deletes the pods from the head (the kit)', function () {
  this.timeout(8 * 60_000);
  let kit: Kit;
  let ops: TestOps;
  let core: k8s.CoreV1Api;
  let authz: k8s.AuthorizationV1Api;
  let restoreEnv: (() => void) | undefined;

  before(async function () {
    kit = await useKit(this);
    restoreEnv = setEnv(kitProviderEnv(kit));
    core = kitClient(kit, k8s.CoreV1Api);
    authz = kitClient(kit, k8s.AuthorizationV1Api);
  });
  after(async () => {
    restoreEnv?.();
    if (kit) await releaseKit();
  });
  beforeEach(async () => {
    ops = await kubeOps();
  });
  afterEach(async () => {
    for (const c of ['kautodown', 'kplain']) await down(ops, c, { graceSeconds: 1 }).catch(() => undefined);
    await ops.dispose();
  });

  /**
   * A job that keeps the agent busy until the test lets it end (a file the test makes in the
   * head pod, through the kubernetes exec the provider uses), bounded at 5 min.
   */
  const holdTask = (file: string) => {
    const flag = `/tmp/skydeck-test-release-${randomBytes(6).toString('hex')}`;
    const task = writeTask(ops.workspaceRoot, file, `resources: {infra: k8s}\nrun: for i in $(seq 3000); do [ -e ${flag} ] && exit 0; sleep 0.1; done\n`);
    const release = async (row: Parameters<typeof readHandle>[0]) => {
      const k = readHandle(row).kube!;
      const r = await createKubeTransport({ context: k.context, namespace: k.namespace, container: k.container, pod: k.pods[0] }).exec(['/bin/sh', '-c', `touch ${flag}`]);
      assert.equal(r.code, 0, r.stderr.toString());
    };
    return { task, release };
  };
  const podsOf = async (uid: string) => (await core.listNamespacedPod({ namespace: 'default', labelSelector: `skydeck-cluster-uid=${uid}` })).items;
  const may = async (uid: string, verb: string, name?: string) => (await authz.createSubjectAccessReview({
    body: { spec: { user: `system:serviceaccount:default:skydeck-${uid.toLowerCase()}`, groups: ['system:serviceaccounts', 'system:authenticated'],
      resourceAttributes: { namespace: 'default', verb, resource: 'pods', ...(name ? { name } : {}) } } },
  })).status?.allowed === true;

  it('launch -i 0 --down: the idle head deletes its pods with an identity limited to them; a refresh finds the cluster gone', async () => {
    // The agent's idle clock must not fire before the checks below: a job holds it busy until
    // the test lets it end, not for a fixed 20 s.
    const hold = holdTask('hold.yaml');
    const r = await launch(ops, { taskFile: hold.task, cluster: 'kautodown', idleMinutes: 0, down: true, detach: true });
    assert.ok(r.jobId);
    const row = (await ops.store.read((db) => getCluster(db, 'kautodown')))!;
    assert.deepEqual([row.autostop_minutes, row.autostop_down], [0, 1]);
    const pod = `skydeck-${row.uid.toLowerCase()}-0`;
    assert.equal((await podsOf(row.uid))[0].spec?.serviceAccountName, `skydeck-${row.uid.toLowerCase()}`);
    // Its own pod, nothing else: no other pod, no list, no create, no exec (single node).
    assert.equal(await may(row.uid, 'delete', pod), true);
    assert.equal(await may(row.uid, 'delete', 'someone-else'), false);
    assert.equal(await may(row.uid, 'list'), false);
    assert.equal(await may(row.uid, 'create'), false);
    // The hold job still ran all along: the pod could not have idled out before these checks.
    assert.equal((await podsOf(row.uid)).filter((p) => !p.metadata?.deletionTimestamp).length, 1, 'the pod is there until the hold ends');
    await hold.release(row);
    await waitFor('the head to delete its pod once idle', async () => (await podsOf(row.uid)).length === 0, 180_000);
    await waitFor('the head\'s ServiceAccount gone with it (owner reference)', async () => {
      try {
        await core.readNamespacedServiceAccount({ name: `skydeck-${row.uid.toLowerCase()}`, namespace: 'default' });
        return false;
      } catch (e) {
        return (e as { code?: number }).code === 404;
      }
    }, 120_000);
    // Inside the launch grace a listing without the pods is no proof yet: never UP again. The
    // idle delete can take most of the grace on a busy machine, so the look is put 1 s into it.
    const shift = graceStart(providerHandle((await ops.store.read((db) => getCluster(db, 'kautodown')))!)) + 1_000 - Date.now();
    ops.clock = { now: () => Date.now() + shift, sleep: realClock.sleep };
    const st = (await status(ops, { refresh: true })).find((x) => x.cluster.name === 'kautodown')!;
    assert.equal(st.cluster.status, 'INIT', JSON.stringify(st));
    assert.match(st.cluster.last_error ?? '', new RegExp(`head instance ${pod} is gone \\(autodown, or deleted outside Skydeck\\)`));
    // Two minutes on (an injected clock, not a sleep): past the grace the row goes, with proof.
    ops.clock = { now: () => Date.now() + 120_000, sleep: realClock.sleep };
    const later = (await status(ops, { refresh: true })).find((x) => x.cluster.name === 'kautodown')!;
    assert.equal(later.removed, true, JSON.stringify(later));
    assert.equal(await ops.store.read((db) => getCluster(db, 'kautodown')), undefined);
  });

  it('autostop without --down is refused (pods cannot stop); --down on a cluster launched without it says to relaunch', async () => {
    // Not about the launch grace: the down after it need not idle out the minute (kubeOps.ts).
    ops.timing = { ...ops.timing, ...SHORT_LAUNCH_GRACE };
    const task = writeTask(ops.workspaceRoot, 'plain.yaml', 'resources: {infra: k8s}\nrun: echo plain\n');
    const r = await launch(ops, { taskFile: task, cluster: 'kplain' });
    assert.equal(r.final?.status, 'SUCCEEDED');
    const row = (await ops.store.read((db) => getCluster(db, 'kplain')))!;
    assert.equal((await podsOf(row.uid))[0].spec?.serviceAccountName, 'default', 'no identity without --down (single node)');
    await assert.rejects(setAutostop(ops, 'kplain', { idleMinutes: 5 }), /cannot set autostop on kplain: Kubernetes clusters cannot be stopped \(pods have no stopped state\): use --down/);
    await assert.rejects(setAutostop(ops, 'kplain', { idleMinutes: 5, down: true }), /its head pod has no identity that may delete pods \(made only for a launch with --down\); relaunch the cluster with --down/);
    assert.equal((await podsOf(row.uid)).length, 1, 'nothing changed');
  });

  it('a head whose rights were taken away (RoleBinding deleted) leaves the pods running and says why in status, never "gone"', async () => {
    ops.timing = { ...ops.timing, ...SHORT_LAUNCH_GRACE };
    // Held busy until the RoleBinding is gone (then released), not for a fixed 8 s.
    const hold = holdTask('hold2.yaml');
    await launch(ops, { taskFile: hold.task, cluster: 'kautodown', idleMinutes: 0, down: true, detach: true });
    const row = (await ops.store.read((db) => getCluster(db, 'kautodown')))!;
    await kitClient(kit, k8s.RbacAuthorizationV1Api).deleteNamespacedRoleBinding({ name: `skydeck-${row.uid.toLowerCase()}`, namespace: 'default' });
    await hold.release(row);
    const seen = await waitFor('the self-stop to have tried', async () => {
      const st = (await status(ops, { refresh: true })).find((x) => x.cluster.name === 'kautodown');
      return st?.live?.autostop?.problems.length ? st : undefined;
    }, 180_000);
    assert.match(seen.live!.autostop!.problems.join('\n'), /delete pod skydeck-[^:]+-0: HTTP 403 .*forbidden/i);
    assert.equal(seen.cluster.status, 'UP');
    assert.equal((await podsOf(row.uid)).filter((p) => !p.metadata?.deletionTimestamp).length, 1, 'the pod runs on');
  });
});
