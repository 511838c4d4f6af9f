// Why an exec into a pod could not start, in words. The WebSocket handshake only says
// "Unexpected server response: 500"; the API server's reason (a kubelet that does not answer,
// a pod that is gone) is asked for with plain reads, which carry it in their body.
import type { KubeApi } from './api';
import { isNotFound } from './errors';

interface Failure {
  code?: number;
  body?: unknown;
  message?: string;
}

function bodyMessage(e: unknown): string {
  const f = e as Failure;
  const b = typeof f.body === 'string' ? (() => { try { return JSON.parse(f.body as string); } catch { return { message: f.body }; } })() : f.body;
  const m = (b as { message?: unknown } | undefined)?.message;
  return typeof m === 'string' ? m : f.message ?? String(e);
}

/** A kubelet the API server cannot reach: it proxies exec/logs to it, so it answers 5xx with the dial error. */
const KUBELET_SILENT = /dial(ing)? (tcp|backend)|connection refused|no route to host|i\/o timeout|connect: |EOF|kubelet/i;

/** `t` is the exec's target (execTransport's PodTarget, spelled out: that file imports this one). */
export async function describeExecFailure(api: KubeApi, t: { context: string; namespace: string; pod: string; container: string }, cause: string): Promise<string> {
  const where = `pod ${t.pod} (${t.context}/${t.namespace})`;
  const { core } = api.clients(t.context);
  let node: string | undefined;
  try {
    const pod = await core.readNamespacedPod({ name: t.pod, namespace: t.namespace });
    node = pod.spec?.nodeName;
    if (pod.metadata?.deletionTimestamp) return `cannot exec in ${where}: the pod is being deleted (${cause})`;
    if (pod.status?.phase !== 'Running') return `cannot exec in ${where}: the pod is ${pod.status?.phase ?? 'in no phase'} (${cause})`;
  } catch (e) {
    if (isNotFound(e)) return `cannot exec in ${where}: the pod no longer exists (deleted outside Skydeck?)`;
    return `cannot exec in ${where}: ${cause}; the API server did not answer either: ${bodyMessage(e)}`;
  }
  try {
    // The smallest request the kubelet serves for this pod: one byte of its log.
    await core.readNamespacedPodLog({ name: t.pod, namespace: t.namespace, container: t.container, limitBytes: 1 });
  } catch (e) {
    const why = bodyMessage(e);
    if (((e as Failure).code ?? 500) >= 500 && KUBELET_SILENT.test(why)) {
      return `cannot exec in ${where}: the kubelet of node ${node ?? '?'} is not answering (${why}); the pod and its jobs are left as they are — retry once the node is back`;
    }
    return `cannot exec in ${where}: ${cause}; reading its log failed too: ${why}`;
  }
  return `cannot exec in ${where} on node ${node ?? '?'}: ${cause}`;
}
