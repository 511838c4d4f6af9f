// Multi-node container clusters: one container per node, all named by the cluster's uid and
// started with the host's network, so ranks reach each other at the nodes' own addresses. The
// head's agent reaches a worker's container by ssh to the worker and `<runtime> exec -i` there
// (agent/skydeck_agent_lib/nodes.py), so the head's container needs an ssh client: one is
// installed with the image's package manager when it has none.
import type { ContainerHandle } from '../containers/image';
import { ContainerError, provisionContainer, removeContainer, type ContainerPlan } from '../containers/provision';
import type { ClusterRecord } from '../state';
import type { Transport } from '../transport';
import type { OpsContext } from './context';
import { readHandle } from './clusterHandle';
import { installRuntime } from '../containers/installRuntime';
import { skydeckHome } from '../cost/home';

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
      // This machine's node keeps its runtime hints in the user's Skydeck home (SKYDECK_HOME).
      const hintDir = row.provider === 'local' ? skydeckHome() : undefined;
      return provisionContainer(t, { ...plan, binds: i === 0 ? plan.binds : [], hintDir }, (line) => ctx.progress(line));
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

/**
 * An ssh client inside the container from the image's own package manager, as root there
 * (registry images such as CUDA or PyTorch ones often lack it). Prints "installed" or why not.
 */
const SSH_INSTALL = [
  'command -v ssh >/dev/null 2>&1 && { echo present; exit 0; }',
  '[ "$(id -u)" = 0 ] || { echo "the container does not run as root, so nothing can be installed in it" >&2; exit 3; }',
  'if command -v apt-get >/dev/null 2>&1; then DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-client',
  'elif command -v dnf >/dev/null 2>&1; then dnf install -y -q openssh-clients',
  'elif command -v microdnf >/dev/null 2>&1; then microdnf install -y openssh-clients',
  'elif command -v yum >/dev/null 2>&1; then yum install -y -q openssh-clients',
  'elif command -v apk >/dev/null 2>&1; then apk add --no-cache -q openssh-client',
  'else echo "the image has no package manager (apt-get, dnf, microdnf, yum, apk)" >&2; exit 4; fi || exit $?',
  'command -v ssh >/dev/null 2>&1 || { echo "the package manager ran but no ssh client is on PATH" >&2; exit 5; }',
  'echo installed',
].join('\n');

/** The head's agent starts every worker's rank with ssh: the head's container must have it. */
async function requireSsh(ctx: OpsContext, row: ClusterRecord, c: ContainerHandle): Promise<void> {
  const t = ctx.connections.transportForCluster({ ...row, handle: JSON.stringify({ ...readHandle(row), container: c }) });
  try {
    const have = await t.exec(['/bin/sh', '-c', 'command -v ssh']);
    if (have.code === 0) return;
    ctx.progress(`Installing an ssh client in the head's container (image ${c.image}): a multi-node head starts the workers' ranks with it`);
    const r = await t.exec(['/bin/sh', '-c', SSH_INSTALL]);
    if (r.code === 0) return;
    const why = r.stderr.toString().trim().split('\n').slice(-3).join(' / ') || `exit ${r.code}`;
    throw new ContainerError(`${t.description}: image ${c.image} has no ssh client, which the head's agent of a multi-node cluster needs to start the ranks on the workers, and installing one failed: ${why}\n` +
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
