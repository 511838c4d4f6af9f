// One pod per node. Names derive from the cluster uid (so a repeated create is a 409, never a
// duplicate); labels carry the three Skydeck tags so listings find pods by uid.
import type * as k8s from '@kubernetes/client-node';
import { TAG_CLUSTER, TAG_UID, TAG_WORKSPACE, type RunRequest } from '../provider';
import { shapeOf } from '../nodeShape';
import type { KubeOptions } from './options';
import { mergePodConfig } from './podConfig';
import type { GpuChoice } from './gpuPlacement';

export const CONTAINER = 'node';
/** "T4:1": the GPU type and count a pod was given, read back at setup (grantedAccelerators). */
const GPU_ANNOTATION = 'skydeck-accelerators';
export function podName(uid: string, index: number): string {
  return `skydeck-${uid.toLowerCase()}-${index}`;
}

/** A label value: at most 63 of [A-Za-z0-9._-], alphanumeric at both ends; the full text goes in an annotation. */
export function labelValue(s: string): string {
  const v = s.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return v || 'x';
}

/** The Skydeck tags as labels: on every pod, and on the head's ServiceAccount, Role and binding. */
export function tagLabels(req: RunRequest): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.tags)) labels[k] = labelValue(v);
  return labels;
}

/**
 * account: the ServiceAccount whose token the pod gets (a multi-node head: it reaches its
 * workers through the exec API). Workers get no API token at all; a single-node pod keeps the
 * namespace's default, as before. gpu: the nodes a GPU task may go to (gpuPlacement.ts).
 */
export function podSpec(req: RunRequest, index: number, o: KubeOptions, account?: string, gpu?: GpuChoice): k8s.V1Pod {
  const shape = shapeOf(req);
  const labels = tagLabels(req);
  const requests: Record<string, string> = {};
  const limits: Record<string, string> = {};
  if (shape.cpus) requests.cpu = String(shape.cpus.min);
  if (shape.memory) requests.memory = `${Math.ceil(shape.memory.min * 1024)}Mi`;
  const acc = shape.accelerators?.[0];
  if (acc) limits['nvidia.com/gpu'] = String(Math.max(1, Math.ceil(acc.count)));
  const image = typeof shape.imageId === 'string' ? shape.imageId.replace(/^docker:/, '') : o.image;
  return mergePodConfig({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(req.uid, index),
      labels: { ...labels, 'skydeck-role': index === 0 ? 'head' : 'worker' },
      annotations: {
        [TAG_CLUSTER]: req.tags[TAG_CLUSTER] ?? req.clusterName, [TAG_UID]: req.uid, [TAG_WORKSPACE]: req.tags[TAG_WORKSPACE] ?? req.workspaceId,
        ...(acc ? { [GPU_ANNOTATION]: `${acc.name}:${limits['nvidia.com/gpu']}` } : {}),
      },
    },
    spec: {
      restartPolicy: 'Never',
      hostNetwork: o.hostNetwork,
      terminationGracePeriodSeconds: 10,
      ...(account ? { serviceAccountName: account, automountServiceAccountToken: true } : index > 0 ? { automountServiceAccountToken: false } : {}),
      ...(acc && gpu ? gpuPlacementSpec(gpu) : {}),
      containers: [{
        name: CONTAINER,
        image,
        imagePullPolicy: o.pullPolicy,
        // Stays up until deleted; exits at once on SIGTERM so a delete is quick.
        command: ['/bin/sh', '-c', 'trap "exit 0" TERM INT; while :; do sleep 3600 & wait $!; done'],
        resources: { ...(Object.keys(requests).length ? { requests } : {}), ...(Object.keys(limits).length ? { limits } : {}) },
      }],
    },
  }, o.podConfig);
}

/** One value: a nodeSelector; several (product names of one GPU type): a required node affinity. */
function gpuPlacementSpec(gpu: GpuChoice): Pick<k8s.V1PodSpec, 'nodeSelector' | 'affinity'> {
  if (gpu.values.length === 1) return { nodeSelector: { [gpu.key]: gpu.values[0] } };
  return { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: gpu.key, operator: 'In', values: gpu.values }] }] } } } };
}

/**
 * The GPUs a pod was given: the annotation's type, if its count is what the container's limit
 * (which the scheduler enforced) says. Anything else in the annotation is ignored.
 */
export function grantedAccelerators(pod: k8s.V1Pod | undefined): Record<string, number> | undefined {
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]{0,63}):([1-9]\d{0,2})$/.exec(pod?.metadata?.annotations?.[GPU_ANNOTATION] ?? '');
  const limit = pod?.spec?.containers?.find((c) => c.name === CONTAINER)?.resources?.limits?.['nvidia.com/gpu'];
  return m && limit === m[2] ? { [m[1]]: Number(m[2]) } : undefined;
}
