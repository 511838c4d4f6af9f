// Where a GPU task's pods may go: the nodes whose GPU label names the requested type and that
// offer enough nvidia.com/gpu. Asked of the nodes before any pod is made, so a context without
// the GPU fails over (a capacity error) instead of leaving a pod Pending forever.
import type * as k8s from '@kubernetes/client-node';
import { ProviderError } from '../provider';
import { kubeError } from './errors';
import { withDeadline } from './deadline';
import { AUTOSCALER_LABELS, labelMatches, nodeGpuLabel } from './gpuLabels';

/** A node label and the values it may have (several GPU Feature Discovery product names can mean one type). */
export interface GpuChoice {
  key: string;
  values: string[];
}

export interface GpuAsk {
  name: string;
  /** GPUs per pod (a fraction asks for one whole device). */
  count: number;
}

export async function gpuChoice(core: k8s.CoreV1Api, context: string, gpu: GpuAsk, o: { autoscaler?: string; callMs: number; log?: (m: string) => void }): Promise<GpuChoice> {
  const scaler = o.autoscaler ? AUTOSCALER_LABELS[o.autoscaler] : undefined;
  let nodes: k8s.V1Node[];
  try {
    nodes = (await withDeadline(core.listNode({}), o.callMs, 'list nodes')).items;
  } catch (e) {
    if ((e as { code?: number }).code !== 403) throw kubeError(e, `listing the nodes of context "${context}" to find ${gpu.name} GPUs`);
    // A namespace-only user may not read nodes: ask for the label without proof, and say so.
    const l = scaler ?? AUTOSCALER_LABELS.generic;
    o.log?.(`cannot list the nodes of context "${context}" (RBAC: list nodes): the pods ask for ${l.key}=${l.value(gpu.name)} unchecked; a pod no node matches stays Pending`);
    return { key: l.key, values: [l.value(gpu.name)] };
  }
  return gpuChoiceOf(nodes, context, gpu, o.autoscaler);
}

/** The choice from a node listing (kept apart from the API call so the rules test on their own). */
export function gpuChoiceOf(nodes: k8s.V1Node[], context: string, gpu: GpuAsk, autoscaler?: string): GpuChoice {
  const scaler = autoscaler ? AUTOSCALER_LABELS[autoscaler] : undefined;
  const want = Math.max(1, Math.ceil(gpu.count));
  const fits = new Map<string, Set<string>>();
  const others = new Map<string, number>();
  let most = 0;
  let matched = 0;
  for (const n of nodes) {
    const label = nodeGpuLabel(n.metadata?.labels);
    if (!label || n.spec?.unschedulable) continue;
    const has = Number(n.status?.allocatable?.['nvidia.com/gpu'] ?? 0) || 0;
    if (!labelMatches(gpu.name, label.value)) {
      others.set(label.value, Math.max(others.get(label.value) ?? 0, has));
      continue;
    }
    matched++;
    most = Math.max(most, has);
    if (has >= want) {
      const vs = fits.get(label.key) ?? new Set<string>();
      fits.set(label.key, vs.add(label.value));
    }
  }
  // Mixed labellers are rare; the first key found wins, so one selector covers them.
  const first = [...fits.entries()][0];
  if (first) return { key: first[0], values: [...first[1]].sort() };
  // An autoscaler makes the node when the pod asks: no node need exist yet.
  if (scaler) return { key: scaler.key, values: [scaler.value(gpu.name)] };
  if (matched) {
    throw new ProviderError('capacity', `${gpu.name}:${want} needs ${want} GPU${want === 1 ? '' : 's'} on one node of context "${context}"; its ${matched} schedulable ${gpu.name} node(s) offer at most ${most} (allocatable nvidia.com/gpu)`,
      most ? 'ask for fewer GPUs per node (more nodes instead), or pick another context' : 'the nodes advertise no nvidia.com/gpu: is the NVIDIA device plugin running there?');
  }
  const seen = [...others.entries()].map(([v, c]) => `${v} (${c} GPU${c === 1 ? '' : 's'})`).join(', ');
  throw new ProviderError('capacity',
    `no schedulable node of context "${context}" has a ${gpu.name} GPU (GPU types labelled there: ${seen || 'none'})`,
    `pick a GPU type the cluster has, or another context; a node whose GPU is not labelled can be: kubectl label node NODE skypilot.co/accelerator=${gpu.name.toLowerCase()}; with an autoscaler that makes GPU nodes on demand, set kubernetes.autoscaler`);
}
