// Multi-node container clusters: one container per node, all named by the cluster's uid and
// started with the host's network, so ranks reach each other at the nodes' own addresses. The
// head's agent reaches a worker's container by ssh to the worker and `<runtime> exec -i` there
// (agent/skydeck_agent_lib/nodes.py), so the head's image needs an ssh client.
import type { ContainerHandle } from '../containers/image';
import { ContainerError, provisionContainer, removeContainer, type ContainerPlan } from '../containers/provision';
import type { ClusterRecord } from '../state';
import type { Transport } from '../transport';
import type { OpsContext } from './context';
import { readHandle } from './clusterHandle';
import { installRuntime } from '../containers/installRuntime';

/** Clouds whose nodes get a runtime installed when their image lacks one. */
export const INSTALLING_CLOUDS = ['aws', 'gcp', 'azure'] as const;

/** The container of worker `i` (0-based among the workers): same name, its own runtime. */
export function workerContainer(c: ContainerHandle, i: number): ContainerHandle {
  return { runtime: c.workerRuntimes?.[i] ?? '', name: c.name, image: c.image };
}

/** Every node's own host transport, head first (outside any container). */
function nodeHosts(ctx: OpsContext, row: ClusterRecord): Transport[] {
  const workers = readHandle(row).hosts.slice(1);
  return [ctx.connections.hostTransportForCluster(row), ...workers.map((h) => ctx.connections.hostTransportForHost(h))];
}

/**
 * Readies the container on every node at once. Resolves to the head's handle with the workers'
 * runtimes; rejects with one ContainerError naming every node that failed and its fix. `record`
 * hears of the runtimes found before any failure is thrown (so a down finds what was started).
 */
export async function provisionAllNodes(ctx: OpsContext, row: ClusterRecord, plan: ContainerPlan, record: (c: ContainerHandle) => Promise<void>): Promise<ContainerHandle> {
  const hosts = nodeHosts(ctx, row);
  const install = (INSTALLING_CLOUDS as readonly string[]).includes(row.provider);
  try {
    const results = await Promise.allSettled(hosts.map(async (t, i) => {
      // A cloud node gets a runtime from its OS packages; an ssh host is used as it is.
      if (install) await installRuntime(t, plan.runtimes, (line) => ctx.progress(line));
      return provisionContainer(t, { ...plan, binds: i === 0 ? plan.binds : [] }, (line) => ctx.progress(line));
    }));
    const runtimes = results.map((r) => (r.status === 'fulfilled' ? r.value.runtime : ''));
    const handle: ContainerHandle = { runtime: runtimes[0], name: plan.name, image: plan.image, ...(hosts.length > 1 ? { workerRuntimes: runtimes.slice(1) } : {}) };
    const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
    await record(handle);
    if (failed.length) {
      if (failed.length === 1 || !failed.every((e) => e instanceof ContainerError)) throw failed[0];
      throw new ContainerError(failed.map((e) => e.message).join('\n'), (failed[0] as ContainerError).kind);
    }
    if (hosts.length > 1) await requireSsh(ctx, row, handle);
    return handle;
  } finally {
    await Promise.all(hosts.map((t) => t.close()));
  }
}

/** The head's agent starts every worker's rank with ssh: the head's image must have it. */
async function requireSsh(ctx: OpsContext, row: ClusterRecord, c: ContainerHandle): Promise<void> {
  const t = ctx.connections.transportForCluster({ ...row, handle: JSON.stringify({ ...readHandle(row), container: c }) });
  try {
    const r = await t.exec(['/bin/sh', '-c', 'command -v ssh']);
    if (r.code === 0) return;
    throw new ContainerError(`${t.description}: image ${c.image} has no ssh client, which the head's agent of a multi-node cluster needs to start the ranks on the workers\n` +
      '→ use an image with an ssh client (e.g. RUN apt-get install -y openssh-client in a derived image), or run one node per cluster', 'image');
  } finally {
    await t.close();
  }
}

/** Down's last step: every node's container goes, proved gone; failures name their node. */
export async function removeAllNodeContainers(ctx: OpsContext, row: ClusterRecord, c: ContainerHandle): Promise<string[]> {
  const hosts = nodeHosts(ctx, row);
  try {
    const results = await Promise.allSettled(hosts.map((t, i) => removeContainer(t, i === 0 ? c : workerContainer(c, i - 1), ctx.containerRuntimes)));
    const failed = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
    if (failed.length) throw new Error(failed.join('; '));
    return results.map((r) => (r as PromiseFulfilledResult<string>).value);
  } finally {
    await Promise.all(hosts.map((t) => t.close()));
  }
}
