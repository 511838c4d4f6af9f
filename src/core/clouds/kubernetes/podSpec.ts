// One pod per node. Names derive from the cluster uid (so a repeated create is a 409, never a
// duplicate); labels carry the three Skydeck tags so listings find pods by uid.
import type * as k8s from '@kubernetes/client-node';
import { TAG_CLUSTER, TAG_UID, TAG_WORKSPACE, type RunRequest } from '../provider';
import { shapeOf } from '../nodeShape';
import type { KubeOptions } from './options';
import { mergePodConfig } from './podConfig';

export const CONTAINER = 'node';
/** SkyPilot's node label for a GPU type; a GPU task is scheduled on nodes carrying it. */
export const ACCELERATOR_LABEL = 'skypilot.co/accelerator';

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
 * namespace's default, as before.
 */
export function podSpec(req: RunRequest, index: number, o: KubeOptions, account?: string): k8s.V1Pod {
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
      annotations: { [TAG_CLUSTER]: req.tags[TAG_CLUSTER] ?? req.clusterName, [TAG_UID]: req.uid, [TAG_WORKSPACE]: req.tags[TAG_WORKSPACE] ?? req.workspaceId },
    },
    spec: {
      restartPolicy: 'Never',
      hostNetwork: o.hostNetwork,
      terminationGracePeriodSeconds: 10,
      ...(account ? { serviceAccountName: account, automountServiceAccountToken: true } : index > 0 ? { automountServiceAccountToken: false } : {}),
      ...(acc ? { nodeSelector: { [ACCELERATOR_LABEL]: acc.name.toLowerCase() } } : {}),
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
