// Where a panel's bytes come from. The panel does not know how jobs are fetched: the composition
// root adapts AgentClient.followLogs (which resumes by byte offset after reconnects) to this.

export interface LogStatusUpdate {
  status: string;
  exitCode?: number | null;
  reason?: string | null;
  /** Epoch seconds. */
  startedAt?: number | null;
  endedAt?: number | null;
  /** The job's node count (multi-node jobs have one log per rank). */
  numNodes?: number;
}

export interface LogFollowHooks {
  signal: AbortSignal;
  /** The connection dropped; the source is reconnecting and will resume at the next unseen byte. */
  onReconnect(e: Error): void;
  onStatus(s: LogStatusUpdate): void;
  /**
   * Optional for sources to call: the connection is back. Without it the panel clears the
   * "reconnecting…" banner on the next chunk or status update.
   */
  onResumed(): void;
}

export interface LogFinal {
  status: string;
  exit_code: number | null;
  reason: string | null;
}

export interface LogSource {
  /**
   * Streams the log from `fromOffset` until the job ends (resolves with its final state) or the
   * signal aborts (resolves undefined). Rejects only on an error that reconnecting cannot fix.
   */
  follow(
    fromOffset: number,
    onChunk: (data: Buffer, offset: number) => void,
    hooks: LogFollowHooks,
  ): Promise<LogFinal | undefined>;
}
