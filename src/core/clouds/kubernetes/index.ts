// The Kubernetes cloud, loaded on first use (it brings @kubernetes/client-node): the registry
// and the connections require this module (or its bundle, dist/clouds/kubernetes.js) lazily.
import type { Provider } from '../provider';
import { KubeApi } from './api';
import { KubeExecTransport, type PodTarget } from './execTransport';
import { KubernetesProvider } from './kubeProvider';
import { kubeOptionsFromEnv, type KubeOptions } from './options';
import { checkKubernetes, type KubeCheck } from './check';
import { openKubeShell } from './ttyShell';
import type { InteractiveShell, ShellOptions } from '../../transport/types';

export { KubernetesProvider } from './kubeProvider';
export { KubeExecTransport, type PodTarget } from './execTransport';
export { checkKubernetes, type KubeCheck } from './check';
export { CONTAINER } from './podSpec';

let shared: KubeApi | undefined;

/** One kubeconfig reading per process, shared by the provider and the transports. */
function api(opts: KubeOptions): KubeApi {
  shared ??= new KubeApi({ kubeconfig: opts.kubeconfig, namespace: opts.namespace, allowedContexts: opts.allowedContexts, configFile: opts.configFile });
  return shared;
}

/** `forceDeleteAfterMs`: see KubeOptions (default 15 s; tests shorten it). */
export function createKubernetesProvider(o: { log?: (m: string) => void; forceDeleteAfterMs?: number } = {}): Provider & KubernetesProvider {
  const opts = kubeOptionsFromEnv(process.env, o.log);
  const p = new KubernetesProvider({ ...opts, ...(o.forceDeleteAfterMs !== undefined ? { forceDeleteAfterMs: o.forceDeleteAfterMs } : {}) });
  shared ??= p.api;
  return p;
}

/** `skydeck check`: every context of the kubeconfig (KUBECONFIG, else ~/.kube/config, or `kubeconfig`), asked. */
export function checkContexts(kubeconfig?: string): Promise<KubeCheck[]> {
  const opts = kubeOptionsFromEnv();
  return checkKubernetes(kubeconfig ? new KubeApi({ kubeconfig, namespace: opts.namespace, allowedContexts: opts.allowedContexts, configFile: opts.configFile }) : api(opts));
}

export function createKubeTransport(target: PodTarget): KubeExecTransport {
  return new KubeExecTransport(api(kubeOptionsFromEnv()), target);
}

/** A login shell with a TTY in the pod (Open SSH Terminal on a Kubernetes cluster). */
export function openPodShell(target: PodTarget, opts: ShellOptions): Promise<InteractiveShell> {
  return openKubeShell(api(kubeOptionsFromEnv()), target, opts);
}
