import { AgentClient } from '../jobs';
import { createLocalTransport } from '../transport/localTransport';
import { localNodeEnv } from '../transport/localEnv';
import type { InteractiveShell, ShellOptions, SshTransportOptions, Transport } from '../transport';
import type { SshTransport } from '../transport/sshTransport';
import { notOursReason, type ClusterRecord } from '../state';
import type { HostSpec } from '../clouds/hostSpec';
import type { ContainerHandle } from '../containers/image';
import { readHandle, type KubeHandle } from './clusterHandle';
import { localBaseDir, localBaseProblem } from './localBase';
import { OpsError } from './errors';
import { ContainerTransport } from '../containers/containerTransport';
import type { HolderUse } from '../transport/holder/holderTransport';

export interface ConnectionsOptions {
  knownHostsFile: string;
  /** Asked about unknown host keys of machines the user listed (the ssh cloud). */
  onUnknownHostKey?: SshTransportOptions['onUnknownHostKey'];
  maxChannels?: number;
  log?: (m: string) => void;
  /** Extra SSH settings for every connection (tests: no ~/.ssh, no agent). */
  sshDefaults?: Partial<SshTransportOptions>;
  /** The agent directory to install (default: the one shipped with Skydeck). */
  agentDir?: string;
  /** The open workspace: a cluster on this machine may only use its derived base dir there. */
  workspaceRoot?: string;
  /** Run the head's commands through the per-user connection holder when one answers. */
  holder?: HolderUse;
  /** Make a new client when the row's handle (its endpoint) changed, not only its uid (long-lived CLI workers). */
  keyByHandle?: boolean;
}

/** One agent client per cluster, shared by every operation on it. */
export class Connections {
  private readonly clients = new Map<string, { uid: string; handle: string | null; client: AgentClient }>();

  constructor(private readonly opts: ConnectionsOptions) {}

  client(c: ClusterRecord): AgentClient {
    this.refuseUntrusted(c);
    const known = this.clients.get(c.name);
    if (known && known.uid === c.uid && (!this.opts.keyByHandle || known.handle === c.handle)) return known.client;
    if (known) void known.client.close();
    const client = new AgentClient(this.transportForCluster(c), {
      base: readHandle(c).base,
      log: this.opts.log,
      agentDir: this.opts.agentDir,
    });
    this.clients.set(c.name, { uid: c.uid, handle: c.handle, client });
    return client;
  }

  /** A fresh transport to the cluster's head (inside its container, if it has one), for work outside the agent channel. */
  transportForCluster(c: ClusterRecord): Transport {
    const host = this.hostTransportForCluster(c);
    const container = readHandle(c).container;
    return container ? new ContainerTransport(host, container, (m) => this.opts.log?.(m)) : host;
  }

  /** The head machine itself, outside any container (the runtime's own commands run here). */
  hostTransportForCluster(c: ClusterRecord): Transport {
    this.refuseUntrusted(c);
    // A local agent gets a login-like environment, never the editor's (localEnv.ts).
    const h = readHandle(c);
    if (h.kube) return kubeTransport(h.kube);
    return c.provider === 'local' || h.local ? createLocalTransport({ env: localNodeEnv() }) : this.sshOrHolder(h.hosts[0]);
  }

  /** A fresh transport to one node (a worker of a multi-node cluster), in `container` when given. */
  transportForHost(h: HostSpec, container?: ContainerHandle): Transport {
    return container ? new ContainerTransport(this.ssh(h), container, (m) => this.opts.log?.(m)) : this.ssh(h);
  }

  /** The worker node itself, outside any container. */
  hostTransportForHost(h: HostSpec): SshTransport {
    return this.ssh(h);
  }

  /** Skydeck's own known_hosts (where accepted host keys are recorded). */
  get knownHostsFile(): string {
    return this.opts.knownHostsFile;
  }

  /**
   * A login shell on the head of an ssh-reachable cluster, over the pooled, host-key-verified
   * connection. The transport is released when the shell ends.
   */
  async openShell(c: ClusterRecord, opts: ShellOptions): Promise<InteractiveShell> {
    if (c.provider === 'local') throw new Error(`${c.name} runs on this machine: open a local terminal instead`);
    this.refuseUntrusted(c);
    const k = readHandle(c).kube;
    // No sshd in a pod: the shell is an exec with a TTY through the API server.
    if (k) return loadKube().openPodShell({ context: k.context, namespace: k.namespace, container: k.container, pod: k.pods[0] }, opts);
    const t = this.ssh(readHandle(c).hosts[0]);
    try {
      // A container cluster's terminal lands in its container, where the jobs run.
      const shell = await t.openShell({ ...opts, container: readHandle(c).container });
      shell.onClose(() => void t.close());
      return shell;
    } catch (e) {
      await t.close();
      throw e;
    }
  }

  async forget(name: string): Promise<void> {
    const known = this.clients.get(name);
    this.clients.delete(name);
    if (known) {
      await known.client.close();
      await known.client.transport.close();
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.clients.keys()].map((n) => this.forget(n)));
  }

  /**
   * Every way to a cluster's nodes passes here. A row this machine did not write (one that came
   * with the workspace) is never connected to: connecting runs the agent with the row's base,
   * host and user. Rows are already checked for shape when read (state/rowCheck.ts).
   */
  private refuseUntrusted(c: ClusterRecord): void {
    const why = notOursReason(c);
    if (why) {
      throw new OpsError(
        'failed',
        `Skydeck does not connect to cluster ${c.name}: ${why}. It is listed, never acted on by itself; ` +
          `if it is yours, "skydeck down ${c.name} -y --purge" forgets it (a cloud cluster's instances are matched by its exact uid)`,
      );
    }
    const h = readHandle(c);
    if ((c.provider === 'local' || h.local) && this.opts.workspaceRoot !== undefined) {
      if (h.base !== localBaseDir(this.opts.workspaceRoot, c.name)) {
        throw new OpsError('failed', `cluster ${c.name} records the agent directory ${JSON.stringify(h.base)}, not ${localBaseDir(this.opts.workspaceRoot, c.name)}: Skydeck does not run it`);
      }
      const problem = localBaseProblem(this.opts.workspaceRoot, c.name);
      if (problem) throw new OpsError('failed', `Skydeck does not use cluster ${c.name}'s directory: ${problem}. Remove the link (or move the folder away) and retry`);
    }
  }

  /** Through the connection holder when there is one to use (no jump host, no passphrase), else direct. */
  private sshOrHolder(host: HostSpec | undefined): Transport {
    const use = this.opts.holder;
    if (!use || !host || host.proxyJump || this.opts.sshDefaults?.passphrase !== undefined) return this.ssh(host);
    const { HolderTransport } = require('../transport/holder/holderTransport') as typeof import('../transport/holder/holderTransport');
    return new HolderTransport({ ...this.opts.sshDefaults, ...endpoint(host), knownHostsFile: this.opts.knownHostsFile }, use, () => this.ssh(host));
  }

  private ssh(host: HostSpec | undefined): SshTransport {
    if (!host) throw new Error('the cluster has no head host recorded');
    // Loaded on first use: ssh2 costs ~50 ms at start-up that local-only runs never need.
    const { createSshTransport } = require('../transport/sshTransport') as typeof import('../transport/sshTransport');
    return createSshTransport({
      ...this.opts.sshDefaults,
      ...endpoint(host),
      jump: host.proxyJump ? endpoint(host.proxyJump) : undefined,
      knownHostsFile: this.opts.knownHostsFile,
      onUnknownHostKey: this.opts.onUnknownHostKey,
      maxChannels: this.opts.maxChannels,
      log: this.opts.log,
    });
  }
}

const endpoint = (h: HostSpec) => ({ host: h.address, port: h.port, user: h.user, ...(h.identityFile ? { keyFile: h.identityFile } : {}) });

/** The head pod through the API server's exec (the client library is loaded on first use). */
function loadKube(): ReturnType<typeof import('../clouds/kubernetes/load').loadKubernetes> {
  const { loadKubernetes } = require('../clouds/kubernetes/load') as typeof import('../clouds/kubernetes/load');
  return loadKubernetes();
}

function kubeTransport(k: KubeHandle): Transport {
  return loadKube().createKubeTransport({ context: k.context, namespace: k.namespace, container: k.container, pod: k.pods[0] });
}
