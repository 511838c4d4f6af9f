// Provider settings: the `kubernetes:` section of the Skydeck config file (config.ts), and
// SKYDECK_KUBERNETES_* variables, which win over it. The variables are how the test kit runs
// pods on a loopback-only cluster (a local image, never pulled, on the host network); normal
// users set nothing and get the defaults.
//   SKYDECK_KUBERNETES_NAMESPACE    overrides kubernetes.namespace (and the context's)
//   SKYDECK_KUBERNETES_IMAGE        the pod image when the task names none
//   SKYDECK_KUBERNETES_PULL_POLICY  Always | IfNotPresent (default) | Never
//   SKYDECK_KUBERNETES_HOST_NETWORK 1 = pods on the node's network (not settable from the file:
//                                   it widens what a pod touches)
import { readKubeFileConfig } from './config';
import type { PodConfig } from './podConfig';

export interface KubeOptions {
  kubeconfig?: string;
  /** Default: the context's namespace, else "default". */
  namespace?: string;
  /** kubernetes.allowed_contexts: undefined = every context of the kubeconfig. */
  allowedContexts?: string[];
  /** kubernetes.pod_config, checked (podConfig.ts). */
  podConfig?: PodConfig;
  /** The config file the values came from, for messages. */
  configFile?: string;
  /** The pod image when the task names none; it must have bash and python3 (the agent's needs). */
  image: string;
  pullPolicy: 'Always' | 'IfNotPresent' | 'Never';
  hostNetwork: boolean;
  /** kubernetes.autoscaler: GPU nodes are made on demand, labelled as that autoscaler does (gpuLabels.ts). */
  autoscaler?: string;
  /** Deadline of one API call (deadline.ts); default 30 s. */
  requestTimeoutMs?: number;
  /** How long past its grace period a Terminating pod is deleted again, forced; default 15 s (tests shorten it). */
  forceDeleteAfterMs?: number;
  log?: (m: string) => void;
}

export function kubeOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, log?: (m: string) => void, configFile?: string): KubeOptions {
  const pull = env.SKYDECK_KUBERNETES_PULL_POLICY;
  const file = readKubeFileConfig(configFile);
  return {
    kubeconfig: undefined,
    namespace: env.SKYDECK_KUBERNETES_NAMESPACE || file.namespace,
    allowedContexts: file.allowedContexts,
    podConfig: file.podConfig,
    autoscaler: file.autoscaler,
    configFile: file.file,
    image: env.SKYDECK_KUBERNETES_IMAGE || 'python:3.11-slim',
    pullPolicy: pull === 'Always' || pull === 'Never' ? pull : 'IfNotPresent',
    hostNetwork: env.SKYDECK_KUBERNETES_HOST_NETWORK === '1',
    log,
  };
}
