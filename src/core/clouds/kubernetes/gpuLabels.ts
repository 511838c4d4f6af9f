// Which node label names a node's GPU type. Clusters differ: SkyPilot's own labeller writes
// skypilot.co/accelerator, GKE and EKS write their own keys, CoreWeave and Karpenter theirs,
// and NVIDIA's GPU Feature Discovery writes the full product name. A task says "A100" or
// "H100:8"; these rules tell which label values mean that GPU.

/** The label keys looked at, in the order a node carrying several is read. */
export const GPU_LABEL_KEYS = [
  'skypilot.co/accelerator',
  'cloud.google.com/gke-accelerator',
  'k8s.amazonaws.com/accelerator',
  'karpenter.k8s.aws/instance-gpu-name',
  'gpu.nvidia.com/class',
  'nvidia.com/gpu.product',
] as const;

/** `kubernetes.autoscaler` values: the label its new nodes will carry, and how a GPU is written there. */
export const AUTOSCALER_LABELS: Record<string, { key: string; value: (gpu: string) => string }> = {
  generic: { key: 'skypilot.co/accelerator', value: (g) => g.toLowerCase() },
  karpenter: { key: 'karpenter.k8s.aws/instance-gpu-name', value: (g) => g.toLowerCase() },
  coreweave: { key: 'gpu.nvidia.com/class', value: (g) => g.toUpperCase() },
  // GKE writes most types as nvidia-tesla-<type>; newer ones as nvidia-<type>, and H100 as h100-80gb.
  gke: { key: 'cloud.google.com/gke-accelerator', value: gkeValue },
};

const GKE_SHORT = new Set(['L4', 'A100-80GB', 'H100-80GB', 'H100-MEGA-80GB', 'H200-141GB', 'B200']);

function gkeValue(gpu: string): string {
  const g = gpu.toUpperCase() === 'H100' ? 'H100-80GB' : gpu.toUpperCase() === 'H100-MEGA' ? 'H100-MEGA-80GB' : gpu.toUpperCase();
  return GKE_SHORT.has(g) ? `nvidia-${g.toLowerCase()}` : `nvidia-tesla-${g.toLowerCase()}`;
}

/** Upper-case words of a name: "nvidia-tesla-a100" → [NVIDIA, TESLA, A100]. */
function words(s: string): string[] {
  return s.toUpperCase().split(/[-_ ]+/).filter(Boolean);
}

/**
 * Whether a label value names the requested GPU: every word of the request appears among the
 * value's words ("A100-80GB" in "NVIDIA-A100-SXM4-80GB"; "T4" in "nvidia-tesla-t4"; never "A10"
 * in "A100" nor "L4" in "L40S"). A plain "A100" also matches 80 GB A100s, as the same chip.
 */
export function labelMatches(gpu: string, value: string): boolean {
  const have = new Set(words(value));
  const want = words(gpu);
  return want.length > 0 && want.every((w) => have.has(w));
}

/** The GPU label of one node (the first known key it carries), for messages and matching. */
export function nodeGpuLabel(labels: Record<string, string> | undefined): { key: string; value: string } | undefined {
  for (const key of GPU_LABEL_KEYS) {
    const value = labels?.[key];
    if (value) return { key, value };
  }
  return undefined;
}
