// kubernetes.pod_config: a pod-spec fragment merged into Skydeck's pods. Only fields that
// shape where and how the pod runs are taken; anything that would widen what Skydeck touches
// (another namespace or name, host namespaces unless opted in, privileged containers,
// volumes that could mount the host, another service account's API rights) is refused by
// path, so a config cannot do it by accident.
import type * as k8s from '@kubernetes/client-node';
import { TAG_CLUSTER, TAG_UID, TAG_WORKSPACE } from '../provider';

export interface PodConfig {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown> & { containers?: [{ env?: k8s.V1EnvVar[]; resources?: k8s.V1ResourceRequirements }] };
}

type Checked = { ok: PodConfig } | { refused: string; at: string };

/** Spec fields taken as they are (the API server validates their shape on create). */
const SPEC_FIELDS = new Set(['nodeSelector', 'tolerations', 'affinity', 'priorityClassName', 'imagePullSecrets', 'runtimeClassName', 'schedulerName', 'topologySpreadConstraints']);
const HOST_FIELDS = new Set(['hostPID', 'hostIPC']);
const CONTAINER_FIELDS = new Set(['env', 'resources']);
const OURS = new Set([TAG_CLUSTER, TAG_UID, TAG_WORKSPACE]);
/** Skydeck's own keys (its tags, skydeck-role): listings find pods by them. */
const ours = (k: string) => OURS.has(k) || k.startsWith('skydeck-');

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function strings(v: unknown, at: string): Checked | undefined {
  if (!isMap(v)) return { refused: 'must be a mapping of strings', at };
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') return { refused: 'values must be strings', at: `${at}.${k}` };
    if (ours(k)) return { refused: 'Skydeck sets this key itself (it finds its pods by it)', at: `${at}.${k}` };
  }
  return undefined;
}

export function checkPodConfig(v: unknown, allowHost: boolean): Checked {
  if (!isMap(v)) return { refused: 'must be a mapping (a pod spec fragment)', at: '' };
  for (const k of Object.keys(v)) if (k !== 'metadata' && k !== 'spec') return { refused: 'only metadata and spec are taken', at: `.${k}` };
  if (v.metadata !== undefined) {
    if (!isMap(v.metadata)) return { refused: 'must be a mapping', at: '.metadata' };
    for (const [k, x] of Object.entries(v.metadata)) {
      if (k !== 'labels' && k !== 'annotations') return { refused: `not taken (${k === 'namespace' ? 'use kubernetes.namespace' : 'Skydeck names its pods'})`, at: `.metadata.${k}` };
      const e = strings(x, `.metadata.${k}`);
      if (e) return e;
    }
  }
  if (v.spec !== undefined) {
    if (!isMap(v.spec)) return { refused: 'must be a mapping', at: '.spec' };
    for (const [k, x] of Object.entries(v.spec)) {
      if (HOST_FIELDS.has(k)) {
        if (x !== true && x !== false) return { refused: 'must be true or false', at: `.spec.${k}` };
        if (x && !allowHost) return { refused: 'shares the node\'s processes with the pod; set kubernetes.allow_host_namespaces: true to allow it', at: `.spec.${k}` };
      } else if (k === 'containers') {
        if (!Array.isArray(x) || x.length !== 1 || !isMap(x[0])) return { refused: 'must be a list of one container (merged into Skydeck\'s)', at: '.spec.containers' };
        for (const ck of Object.keys(x[0])) if (!CONTAINER_FIELDS.has(ck)) return { refused: `not taken (only ${[...CONTAINER_FIELDS].join(', ')})`, at: `.spec.containers[0].${ck}` };
        const env = x[0].env;
        if (env !== undefined && (!Array.isArray(env) || env.some((e) => !isMap(e) || typeof e.name !== 'string' || typeof e.value !== 'string' || Object.keys(e).length !== 2))) {
          return { refused: 'must be a list of {name, value} strings', at: '.spec.containers[0].env' };
        }
        if (x[0].resources !== undefined && !isMap(x[0].resources)) return { refused: 'must be a mapping', at: '.spec.containers[0].resources' };
      } else if (!SPEC_FIELDS.has(k)) {
        return { refused: `not taken (taken: ${[...SPEC_FIELDS, ...HOST_FIELDS, 'containers'].join(', ')})`, at: `.spec.${k}` };
      }
    }
  }
  return { ok: v as PodConfig };
}

/** The pod with the fragment merged in: Skydeck's labels, annotations and command win. */
export function mergePodConfig(pod: k8s.V1Pod, c: PodConfig | undefined): k8s.V1Pod {
  if (!c) return pod;
  const { containers, ...spec } = c.spec ?? {};
  const [main, ...rest] = pod.spec!.containers;
  const extra = containers?.[0];
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      labels: { ...c.metadata?.labels, ...pod.metadata?.labels },
      annotations: { ...c.metadata?.annotations, ...pod.metadata?.annotations },
    },
    spec: {
      ...pod.spec!,
      ...(spec as Partial<k8s.V1PodSpec>),
      ...(pod.spec!.nodeSelector || spec.nodeSelector ? { nodeSelector: { ...(spec.nodeSelector as Record<string, string> | undefined), ...pod.spec!.nodeSelector } } : {}),
      containers: [{
        ...main,
        ...(extra?.env ? { env: [...(main.env ?? []), ...extra.env] } : {}),
        ...(extra?.resources ? { resources: { requests: { ...extra.resources.requests, ...main.resources?.requests }, limits: { ...extra.resources.limits, ...main.resources?.limits } } } : {}),
      }, ...rest],
    },
  };
}
