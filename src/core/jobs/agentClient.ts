import { isTransient } from '../transport/errors';
import type { Transport } from '../transport';
import type { AgentLocation } from './bootstrap';
import { AgentGoneError, AgentRpc } from './rpc';
import type { AgentCommand, ArgsOf, CancelArgs, ConfigureArgs, ResultOf, ShutdownResult, StatusResult } from './commands';
import { rowsToJobs, type CancelResult, type JobRow, type JobSpec, type LogsFinal, type SubmitResult } from './protocol';
import { openAgreed } from './handshake';

export interface AgentClientOptions {
  /** Base dir on the node; default ~/.skydeck. */
  base?: string;
  log?: (message: string) => void;
  /** The agent directory to install (default: the one shipped with Skydeck). */
  agentDir?: string;
}

/**
 * Talks to one node's agent over a single `serve` channel shared by every caller. The
 * channel is started on first use (uploading the agent if the node's copy differs) and
 * restarted transparently when it dies.
 */
export class AgentClient {
  private rpc: Promise<AgentRpc> | undefined;
  private location: AgentLocation | undefined;
  private cursor: { db_id: string | null; cursor: number } | undefined;
  private readonly jobs = new Map<number, JobRow>();

  constructor(readonly transport: Transport, private readonly opts: AgentClientOptions = {}) {}

  /** Installs the agent if needed and opens the channel; later calls reuse both. */
  async connect(): Promise<AgentLocation> {
    await this.channel();
    return this.location!;
  }

  /** The pid of the agent's serve process behind the channel (for diagnostics). */
  async servePid(): Promise<number> {
    return (await (await this.channel()).hello).pid;
  }

  submit(spec: JobSpec): Promise<SubmitResult> {
    // Not retried: if the channel died after sending, the job may exist already.
    return this.ask('submit', spec, false);
  }

  /** The whole queue, fetched incrementally: after the first call only changed rows travel. */
  async queue(): Promise<JobRow[]> {
    const args = this.cursor ? { since: this.cursor.cursor, db_id: this.cursor.db_id } : {};
    const q = await this.ask('queue', args, true);
    if (q.full) this.jobs.clear();
    for (const j of rowsToJobs(q)) this.jobs.set(j.job_id, j);
    this.cursor = { db_id: q.db_id, cursor: q.cursor };
    return [...this.jobs.values()].sort((a, b) => a.job_id - b.job_id);
  }

  /** A full snapshot without touching the incremental cursor, for one-off reads. */
  async queueSnapshot(): Promise<JobRow[]> {
    return rowsToJobs(await this.ask('queue', {}, true));
  }

  cancel(target: { jobIds?: number[]; all?: boolean; user?: string }, graceSeconds?: number): Promise<CancelResult> {
    const args: CancelArgs = { grace: graceSeconds };
    if (target.jobIds) args.job_ids = target.jobIds;
    if (target.all) args.all = true;
    if (target.user !== undefined) args.user = target.user;
    return this.ask('cancel', args, true);
  }

  status(): Promise<StatusResult> {
    return this.ask('status', {}, true);
  }

  /** Stops the agent's daemon; the caller has already made sure no job is alive. */
  shutdown(): Promise<ShutdownResult> {
    return this.ask('shutdown', {}, true);
  }

  configure(args: ConfigureArgs): Promise<ResultOf<'configure'>> {
    return this.ask('configure', args, true);
  }

  /**
   * Streams a job's log from `offset`, following until the job ends. If the connection drops
   * it reconnects and resumes at the next unseen byte, so nothing is duplicated or lost.
   */
  async followLogs(
    jobId: number,
    onChunk: (data: Buffer, offset: number) => void,
    opts: {
      offset?: number;
      follow?: boolean;
      signal?: AbortSignal;
      onReconnect?: (e: Error) => void;
      /** A gang job's rank: 0 (default) is the job log. */
      rank?: number;
    } = {},
  ): Promise<LogsFinal | undefined> {
    let offset = opts.offset ?? 0;
    for (let attempt = 0; ; attempt++) {
      if (opts.signal?.aborted) return undefined;
      try {
        const rpc = await this.channel();
        const req = rpc.start('logs', { job_id: jobId, offset, follow: opts.follow ?? true, ...(opts.rank ? { rank: opts.rank } : {}) }, (ev) => {
          const at = ev.offset;
          const data = ev.data;
          // Chunks arrive in order; anything before `offset` was already delivered.
          const skip = Math.max(0, offset - at);
          if (skip < data.length) {
            onChunk(data.subarray(skip), at + skip);
            offset = at + data.length;
          }
        });
        const onAbort = () => void rpc.request('unfollow', { request: req.id }).catch(() => undefined);
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        try {
          return await req.done;
        } finally {
          opts.signal?.removeEventListener('abort', onAbort);
        }
      } catch (e) {
        if (!(e instanceof AgentGoneError) && !isTransient(e)) throw e;
        opts.onReconnect?.(e as Error);
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** Math.min(attempt, 5))));
      }
    }
  }

  async close(): Promise<void> {
    const rpc = this.rpc;
    this.rpc = undefined;
    if (rpc) (await rpc.catch(() => undefined))?.close();
  }

  /** One request; with `retry`, asked once more on a fresh channel if the channel died. */
  private async ask<K extends AgentCommand>(cmd: K, args: ArgsOf<K>, retry: boolean): Promise<ResultOf<K>> {
    try {
      return await (await this.channel()).request(cmd, args);
    } catch (e) {
      if (!retry || !(e instanceof AgentGoneError)) throw e;
      this.opts.log?.(`agent channel on ${this.transport.description} closed (${e.detail}); reconnecting`);
      return (await this.channel()).request(cmd, args);
    }
  }

  private channel(): Promise<AgentRpc> {
    const current = this.rpc;
    if (current) {
      // A dead channel is replaced on the next call; a failed start is retried too.
      return current.then(
        (rpc) => (rpc.closed ? this.restart(current) : rpc),
        () => this.restart(current),
      );
    }
    return this.restart(undefined);
  }

  private restart(stale: Promise<AgentRpc> | undefined): Promise<AgentRpc> {
    if (this.rpc !== stale) return this.rpc!; // someone else already restarted it
    this.rpc = this.start();
    return this.rpc;
  }

  private async start(): Promise<AgentRpc> {
    const { rpc, location } = await openAgreed(this.transport, this.opts);
    this.location = location;
    return rpc;
  }
}
