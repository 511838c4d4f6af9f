// Kubernetes as a cloud: a cluster is one pod per node in a context's namespace. The "region"
// is the context (infra: k8s/<context>); the "account" is the API server it points at, so a
// kubeconfig switched to another cluster is refused, never read as "no pods" (invariant 7).
import { ProviderError, accountMismatch, type ClusterInfo, type ClusterRef, type InstanceInfo, type Provider, type RunRequest, type RunResult, type TaggedIdentity, type TaggedListing, type TerminateAnswer } from '../provider';
import { TAG_UID } from '../provider';
import { waitUntil } from '../waitInstances';
import { KubeApi, type KubeTarget } from './api';
import { isNotFound, kubeError } from './errors';
import { createPods } from './createPods';
import { accountsLeft, deleteAccess } from './headAccess';
import { pendingProblem, podInfo } from './pods';
import { grantedAccelerators, podName } from './podSpec';
import type { KubeOptions } from './options';
import { API_DEADLINE_MS, withDeadline } from './deadline';

/** This long past its grace period a Terminating pod is deleted again with no grace (force). */
const FORCE_AFTER_MS = 15_000;

export class KubernetesProvider implements Provider {
  readonly cloud = 'kubernetes';
  readonly api: KubeApi;
  /** A pod starts in a second or two; a labelled list is cheap, so a launch asks four times a second. */
  readonly runningPollMs = 250;
  readonly cannotStop = 'Kubernetes clusters cannot be stopped (pods have no stopped state): use "down" to delete the pods, or "autostop --down"';

  constructor(readonly opts: KubeOptions) {
    this.api = new KubeApi({ kubeconfig: opts.kubeconfig, namespace: opts.namespace, allowedContexts: opts.allowedContexts, configFile: opts.configFile });
  }

  async identity(region?: string): Promise<string> {
    return this.api.server(this.api.target(region).context);
  }

  /** The context and namespace of a cluster, after checking it still means the recorded API server. */
  where(ref: ClusterRef): KubeTarget {
    const t = this.api.target(ref.region);
    if (ref.account) {
      const server = this.api.server(t.context);
      if (server !== ref.account) throw accountMismatch('kubernetes', 'API server', server, ref.account, `point context "${t.context}" back at ${ref.account} (or pick the context that does)`);
    }
    return t;
  }

  async runInstances(req: RunRequest): Promise<RunResult> {
    const t = this.where(req);
    this.api.requireAllowed(t.context);
    return { created: await createPods(this.api.clients(t.context), t, req, this.opts), resumed: [] };
  }

  /** The API address a multi-node head uses for its workers: a host-network pod reaches the
   * address this machine uses (a test cluster's Service IPs may not route); else in-cluster. */
  headServer(context: string): string | undefined {
    return this.opts.hostNetwork ? this.api.server(context) : undefined;
  }

  async queryInstances(ref: ClusterRef): Promise<InstanceInfo[]> {
    const t = this.where(ref);
    const pods = await this.pods(t, `${TAG_UID}=${ref.uid}`);
    const stuck = pods.map(pendingProblem).find(Boolean);
    if (stuck) this.opts.log?.(stuck);
    return pods.map((p) => podInfo(p, t.context));
  }

  async stopInstances(): Promise<void> {
    throw new ProviderError('config', 'Kubernetes clusters cannot be stopped (pods have no stopped state)', 'use "down" to delete the pods, or autostop --down');
  }

  async startInstances(): Promise<void> {
    throw new ProviderError('config', 'Kubernetes clusters cannot be stopped or started', 'launch again');
  }

  async terminateInstances(ref: ClusterRef, ids?: string[]): Promise<TerminateAnswer> {
    const t = this.where(ref);
    const { core } = this.api.clients(t.context);
    const listed = await this.pods(t, `${TAG_UID}=${ref.uid}`);
    const names = ids ?? listed.map((p) => p.metadata!.name!);
    const ending: string[] = [];
    for (const name of names) {
      const pod = listed.find((p) => p.metadata?.name === name);
      // Only pods whose label names this uid (or, for an id no listing shows, the uid's own name form).
      if (!pod && !name.includes(ref.uid.toLowerCase())) continue;
      const since = pod?.metadata?.deletionTimestamp ? Date.now() - new Date(pod.metadata.deletionTimestamp).getTime() : 0;
      try {
        // Accepted is not gone: a pod may sit in Terminating; only its absence is proof.
        await this.timed(core.deleteNamespacedPod({ name, namespace: t.namespace, ...(since > (this.opts.forceDeleteAfterMs ?? FORCE_AFTER_MS) ? { gracePeriodSeconds: 0 } : {}) }), 'delete pod');
      } catch (e) {
        if (isNotFound(e)) ending.push(name);
        else throw kubeError(e, `deleting pod ${name} in ${t.context}/${t.namespace}`);
      }
    }
    // The head's ServiceAccount, Role and binding (multi-node): owned by the head pod, so the
    // garbage collector takes them with it too; deleted here for a launch that died between.
    if (!ids) await deleteAccess(this.api.clients(t.context), t, ref.uid);
    return { ending };
  }

  async waitInstances(ref: ClusterRef, state: 'running' | 'stopped' | 'terminated', timeoutMs: number, signal?: AbortSignal): Promise<void> {
    await waitUntil(async () => {
      const pods = await this.queryInstances(ref);
      // A pod stuck in Terminating past the grace is deleted again, forced.
      if (state === 'terminated' && pods.length) await this.terminateInstances(ref, pods.map((p) => p.id));
      return pods;
      // Listing pods is cheap, but each round re-sends the deletes: half a second between rounds.
    }, state, `the pods of ${ref.uid}`, timeoutMs, 2 * this.runningPollMs, signal);
  }

  async clusterInfo(ref: ClusterRef): Promise<ClusterInfo> {
    const t = this.where(ref);
    const raw = await this.pods(t, `${TAG_UID}=${ref.uid}`);
    const pods = raw.map((p) => podInfo(p, t.context)).filter((p) => p.status === 'running').sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
    const head = pods.find((p) => p.id === podName(ref.uid, 0));
    if (!head) throw new ProviderError('transient', `the head pod ${podName(ref.uid, 0)} is not running`);
    const node = (p: InstanceInfo) => ({ id: p.id, address: p.privateIp ?? p.id });
    const accelerators = grantedAccelerators(raw.find((p) => p.metadata?.name === head.id));
    return { head: node(head), workers: pods.filter((p) => p !== head).map(node), sshUser: 'root', ...(accelerators ? { accelerators } : {}) };
  }

  async listTagged(account?: string): Promise<TaggedListing> {
    const current = await this.identity();
    const server = account ?? current;
    // Every context of the kubeconfig that points at this API server, each namespace once.
    const targets = new Map<string, KubeTarget>();
    for (const c of this.api.config().getContexts()) {
      let s: string;
      try {
        s = this.api.server(c.name);
      } catch {
        continue;
      }
      if (s !== server) continue;
      const t = this.api.target(c.name);
      if (!targets.has(t.namespace)) targets.set(t.namespace, t);
    }
    if (!targets.size) throw accountMismatch('kubernetes', 'API server', current, server, 'add a context for that API server to the kubeconfig');
    const out: TaggedListing = { account: server, instances: [], listed: [], unlisted: [] };
    for (const t of targets.values()) {
      try {
        out.instances.push(...(await this.pods(t, TAG_UID)).map((p) => podInfo(p, t.context)));
        out.listed.push(`${t.context}/${t.namespace}`);
        (out.identities ??= []).push(...(await this.accessLeft(t)));
      } catch (e) {
        const pe = kubeError(e, `listing pods in ${t.context}/${t.namespace}`);
        out.unlisted.push({ region: `${t.context}/${t.namespace}`, kind: pe.kind, message: pe.message });
      }
    }
    return out;
  }

  async openPorts(): Promise<void> {
    // Pods on the host network (or reached through a port-forward) need no firewall change.
  }

  /** Multi-node heads' ServiceAccounts (each with its Role and RoleBinding), for the leftovers
   * listing. Not billable; a user never allowed to list them (403) made none. */
  private async accessLeft(t: KubeTarget): Promise<TaggedIdentity[]> {
    try {
      return (await accountsLeft(this.api.clients(t.context), t, TAG_UID)).map((sa) => ({
        kind: 'Kubernetes ServiceAccount with its Role and RoleBinding',
        name: `${t.context}/${t.namespace}/${sa.metadata?.name}`,
        tags: { ...(sa.metadata?.labels ?? {}) },
      }));
    } catch (e) {
      if ((e as { code?: number }).code === 403 || /forbidden/i.test((e as Error).message)) return [];
      throw e;
    }
  }

  private timed<T>(p: Promise<T>, what: string): Promise<T> {
    return withDeadline(p, this.opts.requestTimeoutMs ?? API_DEADLINE_MS, what);
  }

  private async pods(t: KubeTarget, labelSelector: string) {
    const { core } = this.api.clients(t.context);
    try {
      return (await this.timed(core.listNamespacedPod({ namespace: t.namespace, labelSelector }), 'list pods')).items;
    } catch (e) {
      throw kubeError(e, `listing pods in ${t.context}/${t.namespace}`);
    }
  }
}
