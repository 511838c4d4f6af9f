// The provision core against the kit's real API server through the fault proxy: a workspace
// store, the real KubernetesProvider (its kubeconfig points at the proxy) and a direct admin
// client for the truth (what pods really exist), with leaks counted as the fake cloud's
// harness counts them: live labelled pods of this workspace whose uid no row owns.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { StateStore, listClusters, knownWorkspaceId } from '../../../src/core/state';
import { TAG_UID, TAG_WORKSPACE } from '../../../src/core/clouds/provider';
import { KubernetesProvider } from '../../../src/core/clouds/kubernetes';
import { kubeOptionsFromEnv } from '../../../src/core/clouds/kubernetes/options';
import { makeEnv, realClock, type ProvisionEnv, type ProvisionTiming } from '../../../src/core/provision';
import { kitProviderEnv, type Kit } from '../k8sKit';
import { KubeFaultProxy } from './faultProxy';

/** The finalizer that stands in for a lost node: the pod is deleted but its object stays. */
export const HOLD = 'skydeck.test/hold';

export interface KubeHarness {
  root: string;
  store: StateStore;
  proxy: KubeFaultProxy;
  provider: KubernetesProvider;
  env: ProvisionEnv;
  /** Direct to the API server, no faults: the truth. */
  core: k8s.CoreV1Api;
  log: string[];
  podsOf(uid: string): Promise<k8s.V1Pod[]>;
  leaks(): Promise<string[]>;
  dispose(): Promise<void>;
}

export async function kubeHarness(kit: Kit, proxy: KubeFaultProxy, timing: Partial<ProvisionTiming> = {}): Promise<KubeHarness> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-kleak-'));
  const store = await StateStore.openWorkspace(root);
  // A stuck Terminating pod is forced 2 s past its grace, not 15 s: the scenario is the same.
  const provider = new KubernetesProvider({
    ...kubeOptionsFromEnv(kitProviderEnv(kit)), kubeconfig: proxy.kubeconfig(kit.kubeconfig), requestTimeoutMs: 5_000, forceDeleteAfterMs: 2_000,
  });
  const log: string[] = [];
  // Short waits so a scenario takes seconds. The launch grace (a pod made but not listed yet
  // proves nothing) is 1 s, not the default minute: Kubernetes lists a pod once it is made, so
  // a down right after a launch only idled the grace out; no scenario here is about it (the
  // scenarios prove a pod gone with the admin client, not by the core's word).
  const env = makeEnv({
    store, clock: realClock, progress: (s) => log.push(s), log: (m) => log.push(m),
    timing: { pollMs: 250, backoffMs: 50, transientRetries: 2, reissueAfterMs: 3_000, confirmTimeoutMs: 60_000, launchGraceMs: 1_000, ...timing },
  }, provider);
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kit.kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const all = async () => (await core.listNamespacedPod({ namespace: 'default', labelSelector: TAG_UID })).items;
  const ours = async () => {
    const ws = await store.read((db) => knownWorkspaceId(db));
    return (await all()).filter((p) => ws && p.metadata?.annotations?.[TAG_WORKSPACE] === ws);
  };
  return {
    root, store, proxy, provider, env, core, log,
    podsOf: async (uid) => (await all()).filter((p) => p.metadata?.labels?.[TAG_UID] === uid),
    async leaks() {
      const uids = new Set((await store.read((db) => listClusters(db))).map((c) => c.uid));
      return (await ours()).filter((p) => !uids.has(p.metadata?.labels?.[TAG_UID] ?? '')).map((p) => `${p.metadata?.name} (${p.status?.phase})`);
    },
    async dispose() {
      // Whatever a failed scenario left: finalizers off, then deleted at once.
      for (const p of await ours()) {
        const name = p.metadata!.name!;
        if (p.metadata?.finalizers?.length) await unhold(core, name).catch(() => undefined);
        await core.deleteNamespacedPod({ name, namespace: 'default', gracePeriodSeconds: 0 }).catch(() => undefined);
      }
      store.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

export async function hold(core: k8s.CoreV1Api, name: string): Promise<void> {
  await core.patchNamespacedPod({ name, namespace: 'default', body: [{ op: 'add', path: '/metadata/finalizers', value: [HOLD] }] });
}

export async function unhold(core: k8s.CoreV1Api, name: string): Promise<void> {
  await core.patchNamespacedPod({ name, namespace: 'default', body: [{ op: 'remove', path: '/metadata/finalizers' }] });
}
