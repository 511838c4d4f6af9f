// The kubernetes provider never reads an error as "no pods", and refuses to look for a
// cluster through a context that now points at another API server (leak invariants 3 and 7).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KubernetesProvider } from '../../../src/core/clouds/kubernetes';
import { isProviderError } from '../../../src/core/clouds/provider';
import { kitProviderEnv, releaseKit, useKit, type Kit } from '../../support/k8sKit';
import { kubeOptionsFromEnv } from '../../../src/core/clouds/kubernetes/options';

describe('kubernetes: errors are errors, switched API servers are refused', function () {
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

  it('multi-node is refused before anything is created', async () => {
    const p = providerWith(real());
    await assert.rejects(
      p.runInstances({ uid: '11111111-2222-4333-8444-555555555556', clusterName: 'm', workspaceId: 'w', numNodes: 3, placement: { cloud: 'kubernetes', useSpot: false }, tags: {} }),
      /multi-node clusters on Kubernetes are not supported yet/,
    );
    assert.deepEqual(await p.queryInstances({ uid: '11111111-2222-4333-8444-555555555556' }), []);
  });
});
