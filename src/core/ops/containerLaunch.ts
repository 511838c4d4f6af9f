// `image_id: docker:<image>` on local and ssh clusters: the container is readied on every node
// before the agent is installed (into it), and removed at down (containerNodes.ts).
import type { ClusterRecord } from '../state';
import type { Task } from '../task';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { readHandle } from './clusterHandle';
import { updateCluster } from './provisionReachable';
import { containerImageOf, containerNameOf } from '../containers/image';
import { ContainerError, DEFAULT_RUNTIMES } from '../containers/provision';
import { provisionAllNodes, removeAllNodeContainers } from './containerNodes';
import { registryAuthOf } from '../containers/registryAuth';

/** The task's container image, or undefined; a malformed `docker:` value is a usage error. */
export function taskContainerImage(task: Task): string | undefined {
  const c = containerImageOf(task.resources.imageId);
  if (c && 'problem' in c) throw new OpsError('usage', c.problem);
  return c?.image;
}

/**
 * SKYPILOT_DOCKER_PASSWORD given as an env still reaches the job, as a secret: the agent stores
 * a job's envs in its jobs.db, and only the names of its secrets.
 */
export function keepRegistryPasswordSecret(envs: Record<string, string>, secrets: Record<string, string>): void {
  const k = 'SKYPILOT_DOCKER_PASSWORD';
  if (!(k in envs)) return;
  secrets[k] = envs[k];
  delete envs[k];
}

/** A launch onto an existing cluster must ask for the container it has (or none if it has none). */
export function checkReuse(row: ClusterRecord, image: string | undefined): void {
  const have = readHandle(row).container?.image;
  if (row.status !== 'UP' || have === image) return;
  const what = (i: string | undefined) => (i ? `image ${i}` : 'no container');
  throw new OpsError('usage', `cluster ${row.name} runs ${what(have)}; the task asks for ${what(image)}: launch it on a new cluster (-c), or down ${row.name} first`);
}

/**
 * Readies the head's container and records it on the row. The row names the container (from
 * its uid) before anything is created, so a down finds it whatever happens next.
 */
export async function readyContainer(ctx: OpsContext, row: ClusterRecord, image: string, task: Task, envs: Record<string, string>): Promise<ClusterRecord> {
  const handle = readHandle(row);
  const name = containerNameOf(row.uid);
  row = await updateCluster(ctx, row, { handle: JSON.stringify({ ...handle, container: { runtime: '', name, image } }) });
  try {
    const c = await provisionAllNodes(ctx, row, {
      image, name, uid: row.uid, binds: handle.base ? [handle.base] : [], gpu: task.resources.accelerators.length > 0,
      auth: registryAuthOf(envs), runtimes: ctx.containerRuntimes,
    }, async (found) => {
      row = await updateCluster(ctx, row, { handle: JSON.stringify({ ...readHandle(row), container: found }) });
    });
    const where = c.workerRuntimes ? ` on ${c.workerRuntimes.length + 1} nodes` : '';
    return await updateCluster(ctx, row, { handle: JSON.stringify({ ...readHandle(row), container: c }) }, { kind: 'container', message: `container ${c.name} of ${c.image} (${c.runtime})${where}` });
  } catch (e) {
    if (e instanceof ContainerError) throw new OpsError('failed', `launch of ${row.name}: ${e.message}`);
    throw e;
  }
}

/** Is the cluster's container there and running (down skips the agent when it is not)? */
export async function containerRunning(ctx: OpsContext, row: ClusterRecord): Promise<boolean> {
  const c = readHandle(row).container!;
  const rts = c.runtime ? [c.runtime] : (ctx.containerRuntimes ?? DEFAULT_RUNTIMES);
  const host = ctx.connections.hostTransportForCluster(row);
  const r = await host.exec(['/bin/sh', '-c', 'N=$1; shift; for rt in "$@"; do command -v "$rt" >/dev/null 2>&1 && [ "$("$rt" container inspect --format "{{.State.Running}}" "$N" 2>/dev/null)" = true ] && exit 0; done; exit 1', 'sh', c.name, ...rts])
    .finally(() => host.close());
  return r.code === 0;
}

/**
 * Down of a container cluster after its jobs and agent are stopped: the container goes (the
 * ssh base and workdir live in it), then a local cluster's bind-mounted directory on the host.
 */
export async function removeContainerAndBase(ctx: OpsContext, row: ClusterRecord): Promise<string[]> {
  const notes = [await removeClusterContainer(ctx, row) ?? ''];
  const base = readHandle(row).base;
  if (row.provider === 'local' && base) {
    const t = ctx.connections.hostTransportForCluster(row);
    const r = await t.exec(['rm', '-rf', '--', base]).finally(() => t.close());
    if (r.code !== 0) throw new Error(`removing ${base} failed: ${r.stderr.toString().trim()}`);
    notes.push(`removed ${base}`);
  }
  return notes.filter(Boolean);
}

/** Down's last step on a container cluster: every node's container goes, proved gone. */
export async function removeClusterContainer(ctx: OpsContext, row: ClusterRecord): Promise<string | undefined> {
  const c = readHandle(row).container;
  if (!c) return undefined;
  return (await removeAllNodeContainers(ctx, row, c)).join('; ');
}
