import type { ClusterInfo } from '../clouds/provider';
import type { KubernetesProvider } from '../clouds/kubernetes/kubeProvider';
import { refOf } from '../provision/handle';
import type { ClusterRecord } from '../state';
import type { ReachableHandle } from './clusterHandle';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { CONTAINER } from '../clouds/kubernetes/podSpec';

/** What a Kubernetes cluster's row keeps to reach its pods: context, namespace, pod names (head first). */
export function kubeHandle(ctx: OpsContext, row: ClusterRecord, info: ClusterInfo): ReachableHandle {
  const p = ctx.providers?.get('kubernetes') as KubernetesProvider | undefined;
  if (!p) throw new OpsError('failed', 'the kubernetes provider is not available');
  const t = p.where(refOf(row));
  return { hosts: [], workdir: '', kube: { context: t.context, namespace: t.namespace, container: CONTAINER, pods: [info.head.id, ...info.workers.map((w) => w.id)], ...(p.headServer(t.context) ? { server: p.headServer(t.context) } : {}) } };
}
