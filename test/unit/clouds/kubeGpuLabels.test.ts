// GPU placement on Kubernetes: which node labels name the requested GPU type, and what a
// context without it says. The API path (listing real nodes) is in the kit's gpuNodes test.
import * as assert from 'node:assert/strict';
import type * as k8s from '@kubernetes/client-node';
import { AUTOSCALER_LABELS, labelMatches } from '../../../src/core/clouds/kubernetes/gpuLabels';
import { gpuChoiceOf } from '../../../src/core/clouds/kubernetes/gpuPlacement';
import { podSpec } from '../../../src/core/clouds/kubernetes/podSpec';
import { isProviderError } from '../../../src/core/clouds/provider';

const node = (name: string, labels: Record<string, string>, gpus: number, unschedulable = false): k8s.V1Node => ({
  metadata: { name, labels },
  spec: unschedulable ? { unschedulable } : {},
  status: { allocatable: { cpu: '8', 'nvidia.com/gpu': String(gpus) } },
});

function refusal(f: () => unknown): { kind: string; message: string; hint?: string } {
  try {
    f();
  } catch (e) {
    assert.ok(isProviderError(e), String(e));
    return e as never;
  }
  assert.fail('expected a refusal');
}

describe('kubernetes: GPU types from node labels', () => {
  it('matches each labeller\'s way of writing a GPU type, word for word', () => {
    const yes: [string, string][] = [
      ['A100', 'a100'], ['T4', 'nvidia-tesla-t4'], ['L4', 'nvidia-l4'], ['A100-80GB', 'nvidia-a100-80gb'],
      ['A100-80GB', 'NVIDIA-A100-SXM4-80GB'], ['H100', 'NVIDIA-H100-80GB-HBM3'], ['A10G', 'a10g'], ['H100', 'H100'],
    ];
    const no: [string, string][] = [
      ['A10', 'nvidia-tesla-a100'], ['L4', 'NVIDIA-L40S'], ['A100-80GB', 'NVIDIA-A100-SXM4-40GB'], ['T4', 't4g'], ['V100', ''],
    ];
    for (const [gpu, v] of yes) assert.ok(labelMatches(gpu, v), `${gpu} ~ ${v}`);
    for (const [gpu, v] of no) assert.ok(!labelMatches(gpu, v), `${gpu} !~ ${v}`);
  });

  it('an autoscaler\'s label is written as that autoscaler writes it', () => {
    assert.equal(AUTOSCALER_LABELS.gke.value('T4'), 'nvidia-tesla-t4');
    assert.equal(AUTOSCALER_LABELS.gke.value('H100'), 'nvidia-h100-80gb');
    assert.equal(AUTOSCALER_LABELS.gke.value('L4'), 'nvidia-l4');
    assert.equal(AUTOSCALER_LABELS.karpenter.value('A10G'), 'a10g');
    assert.equal(AUTOSCALER_LABELS.coreweave.value('a100'), 'A100');
  });

  it('picks the label key and every matching value of the nodes that have enough GPUs', () => {
    const nodes = [
      node('a', { 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB' }, 8),
      node('b', { 'nvidia.com/gpu.product': 'NVIDIA-A100-PCIE-80GB' }, 2),
      node('c', { 'nvidia.com/gpu.product': 'Tesla-T4' }, 4),
      node('cordoned', { 'nvidia.com/gpu.product': 'NVIDIA-A100-80GB-X' }, 8, true),
      node('cpu', {}, 0),
    ];
    assert.deepEqual(gpuChoiceOf(nodes, 'ctx', { name: 'A100-80GB', count: 1 }), { key: 'nvidia.com/gpu.product', values: ['NVIDIA-A100-PCIE-80GB', 'NVIDIA-A100-SXM4-80GB'] });
    assert.deepEqual(gpuChoiceOf(nodes, 'ctx', { name: 'A100-80GB', count: 4 }), { key: 'nvidia.com/gpu.product', values: ['NVIDIA-A100-SXM4-80GB'] });
    // A fraction asks for one whole device.
    assert.deepEqual(gpuChoiceOf(nodes, 'ctx', { name: 'T4', count: 0.5 }), { key: 'nvidia.com/gpu.product', values: ['Tesla-T4'] });
  });

  it('a context without the type, or without enough per node, is a capacity error that says what it has', () => {
    const nodes = [node('g1', { 'cloud.google.com/gke-accelerator': 'nvidia-tesla-t4' }, 2), node('g2', { 'cloud.google.com/gke-accelerator': 'nvidia-l4' }, 1)];
    const none = refusal(() => gpuChoiceOf(nodes, 'prod', { name: 'A100', count: 1 }));
    assert.equal(none.kind, 'capacity');
    assert.match(none.message, /no schedulable node of context "prod" has a A100 GPU \(GPU types labelled there: nvidia-tesla-t4 \(2 GPUs\), nvidia-l4 \(1 GPU\)\)/);
    assert.match(none.hint ?? '', /kubectl label node NODE skypilot\.co\/accelerator=a100/);
    const few = refusal(() => gpuChoiceOf(nodes, 'prod', { name: 'T4', count: 4 }));
    assert.equal(few.kind, 'capacity');
    assert.match(few.message, /T4:4 needs 4 GPUs on one node of context "prod"; its 1 schedulable T4 node\(s\) offer at most 2/);
    const noPlugin = refusal(() => gpuChoiceOf([node('x', { 'skypilot.co/accelerator': 'v100' }, 0)], 'c', { name: 'V100', count: 1 }));
    assert.match(noPlugin.hint ?? '', /device plugin/);
    // With an autoscaler, no node need exist yet: the pod asks for the label it will make.
    assert.deepEqual(gpuChoiceOf(nodes, 'prod', { name: 'A100', count: 1 }, 'gke'), { key: 'cloud.google.com/gke-accelerator', values: ['nvidia-tesla-a100'] });
  });

  it('the pod asks for the choice: a nodeSelector for one value, a required node affinity for several', () => {
    const req = { uid: 'U1', clusterName: 'c', workspaceId: 'w', numNodes: 1, placement: { cloud: 'kubernetes', useSpot: false, resources: { accelerators: [{ name: 'A100-80GB', count: 2 }] } }, tags: {} } as never;
    const o = { image: 'i', pullPolicy: 'Never', hostNetwork: false } as never;
    const one = podSpec(req, 0, o, undefined, { key: 'k', values: ['v'] });
    assert.deepEqual(one.spec?.nodeSelector, { k: 'v' });
    assert.equal(one.spec?.containers[0].resources?.limits?.['nvidia.com/gpu'], '2');
    const two = podSpec(req, 0, o, undefined, { key: 'k', values: ['v1', 'v2'] });
    assert.equal(two.spec?.nodeSelector, undefined);
    assert.deepEqual(two.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['v1', 'v2'] }] }]);
  });
});
