import type { ClusterRecord } from '../state';
import type { ClusterInfo } from '../clouds/provider';
import type { Bootstrap } from '../provision';
import type { ContainerRequest } from '../provision/attempt';
import { readyContainer } from './containerLaunch';
import { readHandle } from './clusterHandle';
import type { AgentClient } from '../jobs';
import type { ReachableHandle } from './clusterHandle';
import type { OpsContext } from './context';
import { localBaseDir } from './context';
import { OpsError } from './errors';
import { agentAutostop } from './agentAutostop';
import { bringUpWorkers } from './multiNode';
import { kubeHandle } from './kubeHandle';

/**
 * The default bootstrap for provider clusters: reach the head over SSH as the ssh cloud does,
 * install and configure the agent, make the workdir. Returns what the handle keeps.
 * `holdSeconds`: a launch, whose job follows, holds autostop off until then (agentAutostop.ts);
 * `start` (no job follows) holds nothing.
 */
export function agentBootstrap(ctx: OpsContext, container?: ContainerRequest, holdSeconds = 0): Bootstrap {
  const boot: Bootstrap = async (row, info) => {
    if (row.provider === 'kubernetes') return setUp(ctx, row, info, kubeHandle(ctx, row, info), 'mkdir -p "$HOME/sky_workdir" && cd "$HOME/sky_workdir" && pwd', holdSeconds);
    const handle: ReachableHandle = {
      hosts: [info.head, ...info.workers].map((n) => ({
        address: n.address, port: info.sshPort ?? 22, user: info.sshUser, ...(info.sshKeyPath ? { identityFile: info.sshKeyPath } : {}),
      })),
      workdir: '',
    };
    return setUp(ctx, row, info, handle, 'mkdir -p "$HOME/sky_workdir" && cd "$HOME/sky_workdir" && pwd', holdSeconds, container);
  };
  boot.withContainer = (c) => agentBootstrap(ctx, c, holdSeconds);
  boot.withHold = (s) => agentBootstrap(ctx, container, s);
  return boot;
}

/** For clouds whose instances are this machine (the fake cloud): the agent runs locally. */
export function localAgentBootstrap(ctx: OpsContext, container?: ContainerRequest, holdSeconds = 0): Bootstrap {
  const boot: Bootstrap = async (row, info) => {
    const handle: ReachableHandle = { hosts: [], base: localBaseDir(ctx.workspaceRoot, row.name), workdir: '', local: true };
    return setUp(ctx, row, info, handle, 'mkdir -p "$1/sky_workdir" && cd "$1/sky_workdir" && pwd', holdSeconds, container);
  };
  boot.withContainer = (c) => localAgentBootstrap(ctx, c, holdSeconds);
  boot.withHold = (s) => localAgentBootstrap(ctx, container, s);
  return boot;
}

async function setUp(
  ctx: OpsContext, row: ClusterRecord, info: ClusterInfo, handle: ReachableHandle, mkWorkdir: string, holdSeconds: number, container?: ContainerRequest,
): Promise<ReachableHandle> {
  let withHandle: ClusterRecord = { ...row, handle: JSON.stringify({ ...JSON.parse(row.handle ?? '{}'), ...handle }) };
  if (container) {
    // Every node's container first (a runtime installed where the image has none): the agent
    // is installed into the head's. A node restarted from STOPPED finds its container stopped.
    withHandle = await readyContainer(ctx, withHandle, container.image, container.task, container.envs);
    handle = { ...handle, container: readHandle(withHandle).container };
  }
  await ctx.connections.forget(row.name);
  const client: AgentClient = ctx.connections.client(withHandle);
  const loc = await client.connect();
  // The workdir is made while the agent is configured: on Kubernetes each exec is a round trip of its own.
  const mkdir = client.transport.exec(['/bin/sh', '-c', mkWorkdir, 'sh', loc.base]);
  mkdir.catch(() => undefined);
  await client.configure({
    cluster_name: row.name, node_ips: [info.head.address, ...info.workers.map((w) => w.address)],
    // The cloud's word for GPUs the node cannot list itself (a pod's nvidia.com/gpu).
    ...(info.accelerators ? { capacity: { accelerators: info.accelerators } } : {}),
    // The head pod itself, for autodown (deleted last).
    ...(handle.kube ? { kube_head: { namespace: handle.kube.namespace, pod: handle.kube.pods[0], container: handle.kube.container, ...(handle.kube.server ? { server: handle.kube.server } : {}) } } : {}),
  });
  const nodes = handle.kube ? handle.kube.pods.length : handle.hosts.length;
  if (nodes > 1) {
    // Multi-node: the head's agent learns to reach its workers (multiNode.ts).
    await bringUpWorkers(ctx, { ...withHandle, num_nodes: nodes }, client);
  }
  // Set now, not after the job's submit: a client that dies mid-launch must not leave a cluster
  // billing forever. A launch's hold keeps it from stopping before its job is in.
  const autostop = agentAutostop(row, !!handle.kube, holdSeconds);
  if (autostop) await client.configure({ autostop });
  const r = await mkdir;
  if (r.code !== 0) throw new OpsError('failed', `could not create the workdir on ${client.transport.description}: ${r.stderr.toString().trim()}`);
  return { ...handle, workdir: r.stdout.toString().trim() };
}
