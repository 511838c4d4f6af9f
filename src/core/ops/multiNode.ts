// The worker side of launching, syncing and tearing down multi-node ssh clusters. The head is
// handled like any single-node cluster; these steps add its workers (hosts[1..] of the handle).
import type { AgentClient } from '../jobs';
import type { ClusterRecord } from '../state';
import type { Task } from '../task';
import type { OpsContext } from './context';
import { readHandle } from './clusterHandle';
import { ensureWorkerAgent, setUpWorkers, tearDownWorker, workerBase, type WorkerNode } from './clusterNodes';
import { cloneWorkdir, localPath, syncFileMounts, syncStateOf, syncWorkdir } from './syncFiles';
import { attachBuckets, detachBuckets } from './bucketAttach';
import type { SyncExtras } from './syncExtras';
import { kubeWorkerNodes, setUpKubeWorkers } from './kubeWorkers';
import { workerContainer } from './containerNodes';
import type { ContainerTransport } from '../containers/containerTransport';

function workersOf(ctx: OpsContext, row: ClusterRecord): WorkerNode[] {
  const kube = readHandle(row).kube;
  if (kube) return kubeWorkerNodes(kube);
  const h = readHandle(row);
  return h.hosts.slice(1).map((host, i) => {
    if (!h.container) return { host, transport: ctx.connections.transportForHost(host) };
    // A container cluster's worker: its agent and files in its container, its key on the host.
    const container = workerContainer(h.container, i);
    const transport = ctx.connections.transportForHost(host, container) as ContainerTransport;
    return { host, transport, hostTransport: transport.host, container };
  });
}

async function withWorkers<T>(ctx: OpsContext, row: ClusterRecord, fn: (w: WorkerNode[]) => Promise<T>): Promise<T> {
  const workers = workersOf(ctx, row);
  try {
    return await fn(workers);
  } finally {
    await Promise.all(workers.map((w) => w.transport.close()));
  }
}

/** Agent, cluster key and pinned host keys on every worker; the head learns its workers. */
export async function bringUpWorkers(ctx: OpsContext, row: ClusterRecord, head: AgentClient): Promise<void> {
  if (row.num_nodes < 2) return;
  ctx.progress(`Setting up ${row.num_nodes - 1} worker node(s) of ${row.name}`);
  const kube = readHandle(row).kube;
  await withWorkers(ctx, row, (workers) => (kube ? setUpKubeWorkers(row, kube, head, workers) : setUpWorkers(row, head, workers)));
}

/**
 * The workdir and file mounts on every worker, in parallel (the head is synced by the caller).
 * ~/sky_workdir is made even for a task without a workdir: every rank starts in it.
 */
export async function syncWorkers(ctx: OpsContext, row: ClusterRecord, task: Task, dir: string, extras: SyncExtras = {}): Promise<void> {
  if (row.num_nodes < 2) return;
  ctx.progress(`Syncing to ${row.num_nodes - 1} worker node(s)`);
  await withWorkers(ctx, row, (workers) => Promise.all(workers.map(async (w) => {
    const { python, base } = await ensureWorkerAgent(w.transport, row.uid);
    // The same place as on the head: ~/sky_workdir of this node's user.
    const r = await w.transport.execShell('mkdir -p "$HOME/sky_workdir" && cd "$HOME/sky_workdir" && pwd');
    if (r.code !== 0) throw new Error(`creating ~/sky_workdir on ${w.host.address} failed: ${r.stderr.toString().trim()}`);
    const workdir = r.stdout.toString().trim();
    if (typeof task.workdir === 'string') await syncWorkdir(w.transport, python, localPath(task.workdir, dir), workdir, syncStateOf(ctx.workspaceRoot, base), extras.fast, extras.deferred);
    else if (task.workdir) await cloneWorkdir(w.transport, workdir, task.workdir, extras.gitEnvs ?? {}); // each node clones for itself
    if (Object.keys(task.fileMounts).length && !extras.fast) await syncFileMounts(w.transport, python, task, dir);
    if (extras.buckets?.length) await attachBuckets(ctx, { name: w.host.address, transport: w.transport, stateBase: `${base}/storage` }, extras.buckets);
  })));
}

/** Unmounts the bucket mounts recorded on every worker (before their directories go). */
export async function detachWorkerBuckets(ctx: OpsContext, row: ClusterRecord): Promise<string[]> {
  if (row.num_nodes < 2) return [];
  return withWorkers(ctx, row, async (workers) => (await Promise.all(workers.map(async (w) =>
    detachBuckets(ctx, { name: w.host.address, transport: w.transport, stateBase: `${await workerBase(w.transport, row.uid)}/storage` })))).flat());
}

/** Removes the cluster key and the cluster's directory from every worker; returns what failed. */
export async function downWorkers(ctx: OpsContext, row: ClusterRecord): Promise<string[]> {
  // Worker pods hold nothing beyond the pod itself, which the down deletes.
  if (row.num_nodes < 2 || readHandle(row).kube) return [];
  return withWorkers(ctx, row, async (workers) => {
    const results = await Promise.allSettled(workers.map((w) => tearDownWorker(row, w)));
    return results.flatMap((r, i) => (r.status === 'rejected' ? [`${workers[i].host.address}: ${(r.reason as Error).message}`] : []));
  });
}
