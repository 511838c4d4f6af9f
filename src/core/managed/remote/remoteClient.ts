// The managed-jobs client for a controller on a controller cluster. Each call runs the same CLI
// bundle on the controller node (`node <bundle> jobs remote-call METHOD`) over the cluster's own
// connection (ops/connections.ts); the request, task YAML texts and env values included, goes on
// stdin and the answer comes back as one JSON line, so nothing of the user's reaches a shell line
// or a log. On the node that command uses the local client, which starts the controller there
// (detached, its own process group) when no live one holds the store's lease.
import type { Transport } from '../../transport';
import { OpsError, type OpsContext } from '../../ops';
import type { ClusterRecord } from '../../state';
import type { JobListing, ManagedEvent, ManagedJob } from '../jobRows';
import type { CancelOutcome, ControllerNote, FollowIO, ManagedJobsClient, ManagedSubmit } from '../client';
import type { ControllerRuntime } from './runtime';
import { checkSubmit } from '../submitCheck';
import { noCarry, planCarry, uploadsRoot } from '../carryFiles';
import { dropCarry, sendCarry } from '../carrySend';
import type { SealWhy } from '../seal';
import { grantControllerBuckets } from './controllerBuckets';

/** Settings of this machine's controller that the node's controller gets too (tests, tuning). */
const FORWARDED = ['SKYDECK_CONTROLLER_IDLE_S', 'SKYDECK_CONTROLLER_POLL_MS'];

export class RemoteManagedClient implements ManagedJobsClient {
  constructor(
    private readonly ctx: OpsContext,
    readonly cluster: ClusterRecord,
    private readonly transport: Transport,
    readonly runtime: ControllerRuntime,
    private readonly extraEnv: Record<string, string> = {},
  ) {}

  /** The environment of every command on the node: where its store is, and never a cluster again. */
  private env(): Record<string, string> {
    const env: Record<string, string> = { SKYDECK_CONTROLLER_HOME: this.runtime.home, SKYDECK_JOBS_CONTROLLER: 'this-machine', ...this.extraEnv };
    for (const k of FORWARDED) if (process.env[k] !== undefined) env[k] = process.env[k]!;
    return env;
  }

  private argv(method: string): string[] {
    return [this.runtime.node, this.runtime.entry, 'jobs', 'remote-call', method];
  }

  private async call<T>(method: string, args: unknown): Promise<T> {
    const r = await this.transport.exec(this.argv(method), { stdin: JSON.stringify(args), env: this.env(), cwd: this.runtime.root });
    const err = r.stderr.toString().trim();
    if (r.code !== 0) throw new OpsError('failed', `the managed-jobs controller on ${this.cluster.name} (${this.transport.description}) refused ${method}: ${err || `exit ${String(r.code ?? r.signal)}`}`);
    const last = r.stdout.toString().trim().split('\n').pop() ?? '';
    try {
      return JSON.parse(last) as T;
    } catch {
      throw new OpsError('failed', `the managed-jobs controller on ${this.cluster.name} answered ${method} with no JSON: ${JSON.stringify(last.slice(0, 200))}`);
    }
  }

  async submit(req: ManagedSubmit): Promise<{ id: number; controller: ControllerNote }> {
    const envs = req.envs ?? {};
    checkSubmit(req.tasks, envs);
    // The VM reads the job's S3 buckets itself: its identity is widened to them first.
    await grantControllerBuckets(this.ctx, this.cluster, req.tasks, envs);
    // The job's local files go to the node first; its tasks name the copies there.
    const plan = req.base !== undefined ? planCarry(req.tasks, envs, req.base, uploadsRoot(this.runtime.home)) : noCarry(req.tasks);
    if (plan.dir) {
      try {
        await sendCarry(this.transport, (await this.ctx.connections.client(this.cluster).connect()).python, plan, (m) => this.ctx.progress(m));
      } catch (e) {
        await dropCarry(this.transport, plan.dir).catch(() => undefined);
        throw e;
      }
    }
    // A failed call may still have recorded the job: its copies stay (the node's sweep removes
    // them after an hour if no job names them).
    const a = await this.call<{ id: number; controller: ControllerNote }>('submit', { tasks: plan.tasks, name: req.name, envs, ...(plan.token ? { uploads: plan.token } : {}) });
    const c = a.controller;
    return { id: a.id, controller: { where: `controller cluster ${this.cluster.name}`, started: c.started, detail: `${this.transport.description}, ${c.detail}` } };
  }

  list(): Promise<JobListing> {
    return this.call('list', {});
  }

  async job(id: number): Promise<ManagedJob | undefined> {
    return (await this.call<{ job: ManagedJob | null }>('job', { id })).job ?? undefined;
  }

  events(id: number): Promise<ManagedEvent[]> {
    return this.call('events', { id });
  }

  cancel(ids: number[] | 'all'): Promise<CancelOutcome> {
    return this.call('cancel', { ids });
  }

  /**
   * Seals the node's store against new jobs if none is unfinished, in one store write there
   * (seal.ts); returns the unfinished ones (none: sealed). `force`: sealed even so (down --purge).
   */
  async seal(why: SealWhy, force = false): Promise<number[]> {
    return (await this.call<{ busy: number[] }>('seal', { why, force })).busy;
  }

  async unseal(): Promise<void> {
    await this.call('unseal', {});
  }

  /** Stops the node's controller process (used before its cluster is torn down). */
  async stopController(): Promise<void> {
    await this.call('stop', {});
  }

  /** Follows the job's output on the node (its log across recoveries); resolves with the exit code there. */
  async follow(id: number, io: FollowIO, signal?: AbortSignal): Promise<number> {
    const ch = await this.transport.openChannel(this.argv('follow'), { env: this.env(), cwd: this.runtime.root, signal });
    const closed = new Promise<number>((resolve) => ch.onClose((code) => resolve(code ?? 1)));
    ch.onData((b) => io.out(b));
    ch.onStderr((b) => io.err(b));
    ch.write(JSON.stringify({ id }));
    ch.end();
    const onAbort = () => ch.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await closed;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}
