// `skydeck check` for Kubernetes: which contexts answer, and whether this user may do what a
// cluster needs (create/list/delete pods, exec into them), by asking the API server itself.
import type { KubeApi } from './api';
import { kubeError } from './errors';

export interface KubeCheck {
  context: string;
  namespace: string;
  ok: boolean;
  /** What is missing, in words ("create pods/exec"), or why the context cannot be reached. */
  problems: string[];
  /** What works with less (no "list nodes": GPU types are not checked before a launch). */
  notes?: string[];
}

const NEEDED: { verb: string; resource: string; subresource?: string }[] = [
  { verb: 'create', resource: 'pods' }, { verb: 'list', resource: 'pods' }, { verb: 'delete', resource: 'pods' },
  { verb: 'create', resource: 'pods', subresource: 'exec' },
];

export async function checkKubernetes(api: KubeApi): Promise<KubeCheck[]> {
  const out: KubeCheck[] = [];
  for (const c of api.config().getContexts()) {
    const t = api.target(c.name);
    if (!api.allowed(c.name)) {
      out.push({ context: c.name, namespace: t.namespace, ok: false, problems: ['not in kubernetes.allowed_contexts: not checked'] });
      continue;
    }
    const { authz } = api.clients(c.name);
    const problems: string[] = [];
    const notes: string[] = [];
    try {
      for (const n of NEEDED) {
        const r = await authz.createSelfSubjectAccessReview({
          body: { spec: { resourceAttributes: { namespace: t.namespace, verb: n.verb, resource: n.resource, ...(n.subresource ? { subresource: n.subresource } : {}) } } },
        });
        if (!r.status?.allowed) problems.push(`${n.verb} ${n.resource}${n.subresource ? `/${n.subresource}` : ''} in namespace ${t.namespace}`);
      }
      // Cluster-scoped and optional: GPU placement reads the nodes' GPU labels (gpuPlacement.ts).
      const nodes = await authz.createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { verb: 'list', resource: 'nodes' } } } });
      if (!nodes.status?.allowed) notes.push('may not list nodes: a GPU task\'s type and count are not checked against the nodes before its pods are made');
    } catch (e) {
      problems.push(`unreachable: ${kubeError(e, `asking ${c.name}`).message}`);
    }
    out.push({ context: c.name, namespace: t.namespace, ok: problems.length === 0, problems, ...(notes.length ? { notes } : {}) });
  }
  return out;
}
