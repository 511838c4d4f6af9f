// One `check` line for Kubernetes from the per-context answers (check.ts): usable when any
// context may do everything a cluster needs; otherwise what is missing, and who can fix it.
// No client library here, so the CLI's check can word the answer without loading it twice.
import type { KubeCheck } from './check';

export interface KubeCheckLine {
  cloud: 'kubernetes';
  ok: boolean;
  detail: string;
  fix?: string;
  /** Contexts that may run clusters (a context is a Kubernetes "region": infra k8s/<context>). */
  regions?: string[];
}

export function kubeCheckSummary(rows: KubeCheck[]): KubeCheckLine {
  const said = (p: string) => p.startsWith('unreachable') || p.startsWith('not in ');
  const each = rows.map((r) => `${r.context} (namespace ${r.namespace}): ${r.ok ? `ok${r.notes?.length ? ` (${r.notes.join('; ')})` : ''}` : r.problems.some(said) ? r.problems.join('; ') : `may not ${r.problems.join(', ')}`}`);
  const usable = rows.filter((r) => r.ok).map((r) => r.context);
  if (usable.length) return { cloud: 'kubernetes', ok: true, detail: each.join('; '), regions: usable };
  const rbac = rows.find((r) => r.problems.some((p) => !said(p)));
  const fenced = rows.length > 0 && rows.every((r) => r.problems.every((p) => p.startsWith('not in ')));
  const fix = fenced
    ? 'no context of the kubeconfig is in kubernetes.allowed_contexts: add one there, or a context with that name to the kubeconfig'
    : rbac
    ? `ask the cluster's admin for a Role in namespace ${rbac.namespace} allowing create, list and delete on pods and create on pods/exec, bound to your user (RBAC); or pick another namespace (kubernetes.namespace in ~/.skydeck/config.yaml)`
    : 'start the cluster, or fix its server address or credentials in the kubeconfig (kubectl cluster-info tells which)';
  return { cloud: 'kubernetes', ok: false, detail: each.join('; ') || 'the kubeconfig has no contexts', fix };
}
