// The head pod's own credentials, made only when it needs them: a ServiceAccount of this
// cluster and a Role naming exactly this cluster's pods, allowing exec into them (multi-node:
// the head reaches its workers) and deleting them (autodown: the head deletes the cluster). Its
// token is mounted in the head pod alone; the user's kubeconfig never enters a pod. All three
// objects carry the pods' labels, and once the head pod exists they are owned by it, so the
// garbage collector deletes them with it even when a down never runs; a down deletes them too.
import type * as k8s from '@kubernetes/client-node';
import type { KubeClients, KubeTarget } from './api';
import { isConflict, isNotFound, kubeError } from './errors';

/** The ServiceAccount, Role and RoleBinding of a cluster share this name (it derives from the uid). */
export function accessName(uid: string): string {
  return `skydeck-${uid.toLowerCase()}`;
}

const meta = (uid: string, labels: Record<string, string>): k8s.V1ObjectMeta => ({ name: accessName(uid), labels: { ...labels } });

/** Before the head pod: the pod's admission needs its ServiceAccount to exist. */
export async function createAccount(c: KubeClients, t: KubeTarget, uid: string, labels: Record<string, string>): Promise<void> {
  try {
    await c.core.createNamespacedServiceAccount({ namespace: t.namespace, body: { metadata: meta(uid, labels) } });
  } catch (e) {
    if (!isConflict(e)) throw kubeError(e, `creating the service account ${accessName(uid)} in ${t.context}/${t.namespace}`);
  }
}

/**
 * After the head pod: the Role (get pods, exec into them: a WebSocket exec is a GET, so 1.20's
 * API server authorizes it as `get` on pods/exec, newer ones as `create`), its binding, and the
 * head pod as owner of all three.
 */
export async function bindToHead(c: KubeClients, t: KubeTarget, uid: string, labels: Record<string, string>, head: k8s.V1Pod, pods: string[], rights: { exec: boolean; delete: boolean }): Promise<void> {
  const name = accessName(uid);
  const owner: k8s.V1OwnerReference = { apiVersion: 'v1', kind: 'Pod', name: head.metadata!.name!, uid: head.metadata!.uid! };
  const m = { ...meta(uid, labels), ownerReferences: [owner] };
  const where = `in ${t.context}/${t.namespace}`;
  await createOrKeep(() => c.rbac.createNamespacedRole({
    namespace: t.namespace,
    body: {
      metadata: m,
      rules: [
        { apiGroups: [''], resources: ['pods'], resourceNames: pods, verbs: rights.delete ? ['get', 'delete'] : ['get'] },
        ...(rights.exec ? [{ apiGroups: [''], resources: ['pods/exec'], resourceNames: pods, verbs: ['get', 'create'] }] : []),
      ],
    },
  }), `creating the role ${name} ${where}`);
  await createOrKeep(() => c.rbac.createNamespacedRoleBinding({
    namespace: t.namespace,
    body: {
      metadata: m,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace: t.namespace }],
    },
  }), `creating the role binding ${name} ${where}`);
  // The account existed before its owner; read-modify-replace, again on a conflict (the token
  // controller writes the account's secrets list meanwhile).
  for (let attempt = 0; ; attempt++) {
    try {
      const sa = await c.core.readNamespacedServiceAccount({ name, namespace: t.namespace });
      if (sa.metadata?.ownerReferences?.some((o) => o.uid === owner.uid)) return;
      sa.metadata = { ...sa.metadata, ownerReferences: [owner] };
      await c.core.replaceNamespacedServiceAccount({ name, namespace: t.namespace, body: sa });
      return;
    } catch (e) {
      if (!isConflict(e) || attempt >= 4) throw kubeError(e, `making the head pod own the service account ${name} ${where}`);
    }
  }
}

async function createOrKeep(f: () => Promise<unknown>, what: string): Promise<void> {
  try {
    await f();
  } catch (e) {
    if (!isConflict(e)) throw kubeError(e, what);
  }
}

/** A down's part: all three gone (absent is fine; a user never allowed to make them gets 403 for none). */
export async function deleteAccess(c: KubeClients, t: KubeTarget, uid: string): Promise<void> {
  const name = accessName(uid);
  const calls: [string, () => Promise<unknown>][] = [
    ['role binding', () => c.rbac.deleteNamespacedRoleBinding({ name, namespace: t.namespace })],
    ['role', () => c.rbac.deleteNamespacedRole({ name, namespace: t.namespace })],
    ['service account', () => c.core.deleteNamespacedServiceAccount({ name, namespace: t.namespace })],
  ];
  for (const [what, f] of calls) {
    try {
      await f();
    } catch (e) {
      if (isNotFound(e) || (e as { code?: number }).code === 403) continue;
      throw kubeError(e, `deleting the ${what} ${name} in ${t.context}/${t.namespace}`);
    }
  }
}

/** The cluster uids that still hold a ServiceAccount here (for listings of leftovers). */
export async function accountsLeft(c: KubeClients, t: KubeTarget, labelSelector: string): Promise<k8s.V1ServiceAccount[]> {
  try {
    return (await c.core.listNamespacedServiceAccount({ namespace: t.namespace, labelSelector })).items;
  } catch (e) {
    throw kubeError(e, `listing service accounts in ${t.context}/${t.namespace}`);
  }
}
