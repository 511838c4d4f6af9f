// Creating a cluster's pods: head first. A multi-node or autodown head gets its own
// ServiceAccount (made before it, as admission needs it) and, once it exists, the Role that
// lets it exec into / delete exactly these pods (headAccess.ts). Repeated calls of one launch find what the first made.
import type * as k8s from '@kubernetes/client-node';
import type { RunRequest } from '../provider';
import type { KubeClients, KubeTarget } from './api';
import { isConflict, kubeError } from './errors';
import { accessName, bindToHead, createAccount } from './headAccess';
import { podName, podSpec, tagLabels } from './podSpec';
import type { KubeOptions } from './options';
import { API_DEADLINE_MS, withDeadline } from './deadline';
import { gpuChoice } from './gpuPlacement';
import { shapeOf } from '../nodeShape';

/** A new ServiceAccount's token is made by the controller a moment later; admission waits for none. */
const TOKEN_WAIT_MS = 60_000;

export async function createPods(c: KubeClients, t: KubeTarget, req: RunRequest, o: KubeOptions): Promise<string[]> {
  const multi = req.numNodes > 1;
  const callMs = o.requestTimeoutMs ?? API_DEADLINE_MS;
  // Before any pod: a context without the GPU is a capacity error (the next context is tried).
  const acc = shapeOf(req).accelerators?.[0];
  const gpu = acc ? await gpuChoice(c.core, t.context, acc, { autoscaler: o.autoscaler, callMs, log: o.log }) : undefined;
  const names = Array.from({ length: req.numNodes }, (_, i) => podName(req.uid, i));
  // The head's own identity: to reach its workers (multi-node), to delete the pods (autodown).
  const rights = { exec: multi, delete: !!req.autostop?.down };
  const identity = rights.exec || rights.delete;
  if (identity) await createAccount(c, t, req.uid, tagLabels(req));
  const created: string[] = [];
  for (let i = 0; i < req.numNodes; i++) {
    const r = await createPod(c, t, podSpec(req, i, o, identity && i === 0 ? accessName(req.uid) : undefined, gpu), callMs);
    if (r.created) created.push(names[i]);
    if (i === 0 && identity) await bindToHead(c, t, req.uid, tagLabels(req), r.pod, names, rights);
  }
  return created;
}

async function createPod(c: KubeClients, t: KubeTarget, body: k8s.V1Pod, callMs: number): Promise<{ pod: k8s.V1Pod; created: boolean }> {
  const name = body.metadata!.name!;
  const deadline = Date.now() + TOKEN_WAIT_MS;
  for (;;) {
    try {
      // Each call has a deadline (deadline.ts): a reset connection must end in an error, not a hang.
      return { pod: await withDeadline(c.core.createNamespacedPod({ namespace: t.namespace, body }), callMs, 'create pod'), created: true };
    } catch (e) {
      // Same name = same uid (names derive from it): an earlier call of this launch made it.
      if (isConflict(e)) return { pod: await withDeadline(c.core.readNamespacedPod({ name, namespace: t.namespace }), callMs, 'read pod'), created: false };
      const pe = kubeError(e, `creating pod ${name} in ${t.context}/${t.namespace}`);
      if (!/no API token found|error looking up service account/i.test(pe.message) || Date.now() > deadline) throw pe;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
