// The kubernetes provider never reads an error as "no pods", and refuses to look for a
// cluster through a context that now points at another API server (leak invariants 3 and 7).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KubernetesProvider } from '../../../src/core/clouds/kubernetes';
import * as k8s from '@kubernetes/client-node';
import { TAG_CLUSTER, TAG_UID, TAG_WORKSPACE, isProviderError } from '../../../src/core/clouds/provider';
import { kitProviderEnv, releaseKit, useKit, type Kit } from '../../support/k8sKit';
import { kubeOptionsFromEnv } from '../../../src/core/clouds/kubernetes/options';

describe('kubernetes: errors are errors, switched API servers are refused, a multi-node head gets no more than it needs', function () {
  this.timeout(10 * 60_000);
  let kit: Kit;
  let dir: string;
  before(async function () {
    kit = await useKit(this);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-kube-'));
  });
  after(async () => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    if (kit) await releaseKit();
  });

  const providerWith = (kubeconfigText: string) => {
    const f = path.join(dir, `kc-${Math.random().toString(36).slice(2)}`);
    fs.writeFileSync(f, kubeconfigText, { mode: 0o600 });
    return new KubernetesProvider({ ...kubeOptionsFromEnv(kitProviderEnv(kit)), kubeconfig: f });
  };
  const real = () => fs.readFileSync(kit.kubeconfig, 'utf8');

  it('an API server that does not answer: queryInstances and listTagged throw, never answer "no pods"', async () => {
    const p = providerWith(real().replace(/server: https:\/\/127\.0\.0\.1:\d+/, 'server: https://127.0.0.1:1'));
    await assert.rejects(p.queryInstances({ uid: '11111111-2222-4333-8444-555555555555' }), (e) => isProviderError(e) && e.kind === 'transient');
    const l = await p.listTagged();
    assert.equal(l.instances.length, 0);
    assert.equal(l.unlisted.length, 1, 'the namespace is named as not listed');
  });

  it('a row recorded on one API server is refused when its context now points at another', async () => {
    const p = providerWith(real());
    const account = await p.identity();
    assert.match(account, /^https:\/\/127\.0\.0\.1:\d+$/);
    await assert.rejects(
      p.queryInstances({ uid: '11111111-2222-4333-8444-555555555555', account: 'https://10.0.0.1:6443' }),
      (e) => isProviderError(e) && e.kind === 'auth' && /unknown — credentials point at kubernetes API server/.test(e.message),
    );
    assert.deepEqual(await p.queryInstances({ uid: '11111111-2222-4333-8444-555555555555', account }), []);
  });

  it('a context the kubeconfig does not have is a config error naming the contexts it has', async () => {
    const p = providerWith(real());
    await assert.rejects(p.queryInstances({ uid: '11111111-2222-4333-8444-555555555555', region: 'nope' }), /no context "nope"/);
  });

  it('multi-node: the head alone gets a ServiceAccount, allowed exec into exactly its cluster\'s pods; listed as an identity; gone with the down', async () => {
    const p = providerWith(real());
    const uid = 'aaaaaaaa-2222-4333-8444-555555555556';
    const ref = { uid, account: await p.identity() };
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kit.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const authz = kc.makeApiClient(k8s.AuthorizationV1Api);
    const may = async (verb: string, resource: string, subresource: string, name?: string) => (await authz.createSubjectAccessReview({
      body: { spec: { user: `system:serviceaccount:default:skydeck-${uid}`, groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
        resourceAttributes: { namespace: 'default', verb, resource, subresource, ...(name ? { name } : {}) } } },
    })).status?.allowed === true;
    try {
      const r = await p.runInstances({ uid, clusterName: 'k8smulti "q" $(x)', workspaceId: 'w', numNodes: 3, placement: { cloud: 'kubernetes', useSpot: false },
        tags: { [TAG_UID]: uid, [TAG_CLUSTER]: 'k8smulti "q" $(x)', [TAG_WORKSPACE]: 'w' } });
      const names = [0, 1, 2].map((i) => `skydeck-${uid}-${i}`);
      assert.deepEqual(r.created, names);
      const pods = await Promise.all(names.map((name) => core.readNamespacedPod({ name, namespace: 'default' })));
      assert.deepEqual(pods.map((x) => [x.spec?.serviceAccountName, x.spec?.automountServiceAccountToken]),
        [[`skydeck-${uid}`, true], ['default', false], ['default', false]]);
      assert.equal(pods[0].metadata?.annotations?.[TAG_CLUSTER], 'k8smulti "q" $(x)');
      for (const n of names) assert.ok(await may('create', 'pods', 'exec', n) && await may('get', 'pods', 'exec', n) && await may('get', 'pods', '', n), n);
      // Nothing beyond: another pod, the listing, new pods, secrets.
      assert.equal(await may('create', 'pods', 'exec', `skydeck-${uid}-3`), false);
      assert.equal(await may('get', 'pods', 'exec', 'someone-else'), false);
      assert.equal(await may('list', 'pods', ''), false);
      assert.equal(await may('create', 'pods', ''), false);
      assert.equal(await may('get', 'secrets', ''), false);
      const sa = await core.readNamespacedServiceAccount({ name: `skydeck-${uid}`, namespace: 'default' });
      assert.deepEqual(sa.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.uid]), [['Pod', names[0], pods[0].metadata?.uid]]);
      const again = await p.runInstances({ uid, clusterName: 'k8smulti', workspaceId: 'w', numNodes: 3, placement: { cloud: 'kubernetes', useSpot: false }, tags: { [TAG_UID]: uid } });
      assert.deepEqual(again.created, [], 'a repeated call finds what the first made');
      const listed = await p.listTagged();
      assert.deepEqual(listed.identities?.filter((i) => i.tags[TAG_UID] === uid).map((i) => i.name), [`${kc.getCurrentContext()}/default/skydeck-${uid}`]);
    } finally {
      await p.terminateInstances(ref);
      await p.waitInstances(ref, 'terminated', 120_000);
    }
    assert.deepEqual(await p.queryInstances(ref), []);
    await assert.rejects(core.readNamespacedServiceAccount({ name: `skydeck-${uid}`, namespace: 'default' }), (e) => (e as { code?: number }).code === 404);
    assert.deepEqual((await p.listTagged()).identities?.filter((i) => i.tags[TAG_UID] === uid), []);
  });
});
