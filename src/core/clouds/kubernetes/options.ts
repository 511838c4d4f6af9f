// Provider settings, from the environment (the kit-style clusters tests start need host
// networking and local images); defaults fit a normal cluster.
export interface KubeOptions {
  kubeconfig?: string;
  /** Default: the context's namespace, else "default". */
  namespace?: string;
  /** The pod image when the task names none; it must have bash and python3 (the agent's needs). */
  image: string;
  pullPolicy: 'Always' | 'IfNotPresent' | 'Never';
  hostNetwork: boolean;
  /** Deadline of one API call (deadline.ts); default 30 s. */
  requestTimeoutMs?: number;
  log?: (m: string) => void;
}

export function kubeOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, log?: (m: string) => void): KubeOptions {
  const pull = env.SKYDECK_KUBERNETES_PULL_POLICY;
  return {
    kubeconfig: undefined,
    namespace: env.SKYDECK_KUBERNETES_NAMESPACE || undefined,
    image: env.SKYDECK_KUBERNETES_IMAGE || 'python:3.11-slim',
    pullPolicy: pull === 'Always' || pull === 'Never' ? pull : 'IfNotPresent',
    hostNetwork: env.SKYDECK_KUBERNETES_HOST_NETWORK === '1',
    log,
  };
}
