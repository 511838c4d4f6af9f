// The worker pods of a multi-node Kubernetes cluster: reached from here through the exec API
// (one transport per pod), and from the head the same way, by its agent's exec client with the
// head pod's own ServiceAccount (agent/skydeck_agent_lib/kexec.py). No keys to hand out.
import type { AgentClient } from '../jobs';
import type { ClusterRecord } from '../state';
import type { KubeHandle } from './clusterHandle';
import { ensureWorkerAgent, type WorkerNode } from './clusterNodes';

/** Workers (pods 1..) as nodes; `host.address` is the pod's name, for messages only. */
export function kubeWorkerNodes(k: KubeHandle): WorkerNode[] {
  const { loadKubernetes } = require('../clouds/kubernetes/load') as typeof import('../clouds/kubernetes/load');
  return k.pods.slice(1).map((pod) => ({
    host: { address: pod, port: 0, user: 'root' },
    transport: loadKubernetes().createKubeTransport({ context: k.context, namespace: k.namespace, container: k.container, pod }),
    pod,
  }));
}

/** The agent in every worker pod; the head's agent learns each pod as an exec target. */
export async function setUpKubeWorkers(row: ClusterRecord, k: KubeHandle, head: AgentClient, workers: WorkerNode[]): Promise<void> {
  const installed = await Promise.all(workers.map((w) => ensureWorkerAgent(w.transport, row.uid)));
  await head.configure({
    workers: workers.map((w, i) => ({
      kube: { namespace: k.namespace, pod: w.pod!, container: k.container, ...(k.server ? { server: k.server } : {}) },
      python: installed[i].python, agent: installed[i].entry, base: installed[i].base,
    })),
  });
}
