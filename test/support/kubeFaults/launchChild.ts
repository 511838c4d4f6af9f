// The launch a kubernetes kill -9 scenario kills: the provision core with the real provider
// (kubeconfig through the fault proxy) launching one cluster; the parent SIGKILLs this process
// when the proxy sees the API server accept the pod, before the answer reaches it.
// argv: workspace root, kubeconfig, cluster name.
import { StateStore } from '../../../src/core/state';
import { KubernetesProvider } from '../../../src/core/clouds/kubernetes';
import { kubeOptionsFromEnv } from '../../../src/core/clouds/kubernetes/options';
import { makeEnv, provision } from '../../../src/core/provision';

async function main(): Promise<void> {
  const [root, kubeconfig, name] = process.argv.slice(2);
  const store = await StateStore.openWorkspace(root);
  const provider = new KubernetesProvider({ ...kubeOptionsFromEnv(), kubeconfig });
  const env = makeEnv({ store, progress: () => undefined, log: () => undefined }, provider);
  process.stdout.write('ready\n');
  await provision(env, { name, numNodes: 1, placements: [{ cloud: 'kubernetes', useSpot: false }], bootstrap: async () => ({ workdir: '/tmp' }) });
  process.stdout.write('not killed\n');
}

void main();
