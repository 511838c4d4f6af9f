// `skydeck check` for Kubernetes against the kit's real API server: a context that may do
// everything is usable; a user without RBAC rights (a client certificate minted from the kit's
// CA, bound to no role) is told exactly what is missing, and a launch as that user fails with
// the permission named, creating nothing; an API server that does not answer is "unreachable".
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkClouds } from '../../../src/core/clouds/check';
import { KubernetesProvider } from '../../../src/core/clouds/kubernetes';
import { kubeOptionsFromEnv } from '../../../src/core/clouds/kubernetes/options';
import { isProviderError } from '../../../src/core/clouds/provider';
import * as k8s from '@kubernetes/client-node';
import { kitClient, kitProviderEnv, releaseKit, useKit, type Kit } from '../../support/k8sKit';

describe('kubernetes: skydeck check and RBAC on the kit', function () {
  this.timeout(10 * 60_000);
  let kit: Kit;
  let dir: string;
  before(async function () {
    kit = await useKit(this);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-kube-check-'));
  });
  after(async () => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    if (kit) await releaseKit();
  });

  const noPools = () => ({ pools: [], errors: [] });
  const check = async (kubeconfig: string) => (await checkClouds({ sshPools: noPools, only: ['kubernetes'], kubeconfig }))[0];

  /** A kubeconfig for user CN=`name`, its certificate signed by the kit's CA; no role names it. */
  function mintedKubeconfig(name: string): string {
    const pki = path.join(kit.runDir, 'pki');
    const key = path.join(dir, `${name}.key`);
    const csr = path.join(dir, `${name}.csr`);
    const crt = path.join(dir, `${name}.crt`);
    execFileSync('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', `/CN=${name}`], { stdio: 'ignore' });
    execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', path.join(pki, 'ca.crt'), '-CAkey', path.join(pki, 'ca.key'), '-CAcreateserial', '-out', crt, '-days', '1'], { stdio: 'ignore' });
    const admin = fs.readFileSync(kit.kubeconfig, 'utf8');
    const server = /server: (\S+)/.exec(admin)![1];
    const f = path.join(dir, `${name}.kubeconfig`);
    fs.writeFileSync(f, [
      'apiVersion: v1', 'kind: Config',
      'clusters:', `- cluster: {certificate-authority: ${path.join(pki, 'ca.crt')}, server: '${server}'}`, '  name: kit',
      'contexts:', `- context: {cluster: kit, user: ${name}}`, '  name: kit-nobody',
      'current-context: kit-nobody',
      'users:', `- name: ${name}`, `  user: {client-certificate: ${crt}, client-key: ${key}}`, '',
    ].join('\n'), { mode: 0o600 });
    return f;
  }

  it('the kit\'s admin context is usable, and named as the region to use', async () => {
    const c = await check(kit.kubeconfig);
    assert.equal(c.ok, true, c.detail);
    assert.match(c.detail, /^skydeck \(namespace default\): ok$/);
    assert.deepEqual(c.regions, ['skydeck']);
  });

  it('a user without rights: check names each missing permission and the fix; launch fails naming the permission and creates nothing', async () => {
    const kc = mintedKubeconfig('skydeck-nobody');
    const c = await check(kc);
    assert.equal(c.ok, false);
    assert.equal(c.detail, 'kit-nobody (namespace default): may not create pods in namespace default, list pods in namespace default, delete pods in namespace default, create pods/exec in namespace default');
    assert.match(c.fix ?? '', /Role in namespace default allowing create, list and delete on pods and create on pods\/exec/);

    const p = new KubernetesProvider({ ...kubeOptionsFromEnv(kitProviderEnv(kit)), kubeconfig: kc });
    const uid = '11111111-2222-4333-8444-5555555555aa';
    await assert.rejects(
      p.runInstances({ uid, clusterName: 'rbac', workspaceId: 'w', numNodes: 1, placement: { cloud: 'kubernetes', useSpot: false }, tags: {} }),
      (e) => isProviderError(e) && e.kind === 'auth' && /forbidden/i.test(e.message) && /skydeck check/.test(e.hint ?? ''),
    );
    // Nothing was made: the admin sees no pod with that uid.
    const admin = new KubernetesProvider({ ...kubeOptionsFromEnv(kitProviderEnv(kit)), kubeconfig: kit.kubeconfig });
    assert.deepEqual(await admin.queryInstances({ uid }), []);
  });

  it('an API server that does not answer is "unreachable", never usable', async () => {
    const f = path.join(dir, 'dead.kubeconfig');
    fs.writeFileSync(f, fs.readFileSync(kit.kubeconfig, 'utf8').replace(/server: https:\/\/127\.0\.0\.1:\d+/, 'server: https://127.0.0.1:1'), { mode: 0o600 });
    const c = await check(f);
    assert.equal(c.ok, false);
    assert.match(c.detail, /^skydeck \(namespace default\): unreachable: /);
    assert.match(c.fix ?? '', /start the cluster, or fix its server address/);
  });

  it('no kubeconfig at all: not usable, with where to put one', async () => {
    const c = await check(path.join(dir, 'missing.kubeconfig'));
    assert.equal(c.ok, false);
    assert.match(c.detail, /could not read the kubeconfig/);
    assert.match(c.fix ?? '', /KUBECONFIG/);
  });

  it('a user with the pod rights but not "list nodes": usable, with the note; a GPU pod asks for SkyPilot\'s label unchecked, and says so', async () => {
    const user = 'skydeck-podsonly';
    const rbac = kitClient(kit, k8s.RbacAuthorizationV1Api);
    const meta = { name: user, namespace: 'default' };
    await rbac.createNamespacedRole({ namespace: 'default', body: { metadata: meta, rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['create', 'list', 'get', 'delete'] },
      { apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] },
    ] } });
    await rbac.createNamespacedRoleBinding({ namespace: 'default', body: { metadata: meta, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: user }, subjects: [{ kind: 'User', name: user, apiGroup: 'rbac.authorization.k8s.io' }] } });
    const admin = new KubernetesProvider({ ...kubeOptionsFromEnv(kitProviderEnv(kit)), kubeconfig: kit.kubeconfig });
    const uid = '11111111-2222-4333-8444-5555555555bb';
    try {
      const kc = mintedKubeconfig(user);
      const c = await check(kc);
      assert.equal(c.ok, true, c.detail);
      assert.match(c.detail, /^kit-nobody \(namespace default\): ok \(may not list nodes: a GPU task's type and count are not checked/);
      const logged: string[] = [];
      const p = new KubernetesProvider({ ...kubeOptionsFromEnv(kitProviderEnv(kit)), kubeconfig: kc, log: (m) => logged.push(m) });
      await p.runInstances({ uid, clusterName: 'gpu-unchecked', workspaceId: 'w', numNodes: 1, tags: { 'skydeck-cluster-uid': uid }, placement: { cloud: 'kubernetes', useSpot: false, resources: { accelerators: [{ name: 'T4', count: 1 }] } } });
      const [pod] = (await kitClient(kit, k8s.CoreV1Api).listNamespacedPod({ namespace: 'default', labelSelector: `skydeck-cluster-uid=${uid}` })).items;
      assert.deepEqual(pod.spec?.nodeSelector, { 'skypilot.co/accelerator': 't4' });
      assert.match(logged.join('\n'), /cannot list the nodes of context "kit-nobody" \(RBAC: list nodes\): the pods ask for skypilot\.co\/accelerator=t4 unchecked/);
    } finally {
      await admin.terminateInstances({ uid }).catch(() => undefined);
      await admin.waitInstances({ uid }, 'terminated', 120_000);
      await rbac.deleteNamespacedRoleBinding({ name: user, namespace: 'default' });
      await rbac.deleteNamespacedRole({ name: user, namespace: 'default' });
    }
  });
});
