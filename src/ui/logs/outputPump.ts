/** Where the pump reads bytes from: the spool. */
export interface PumpSource {
  readonly size: number;
  read(offset: number, max: number): Uint8Array;
}

export interface PumpOptions {
  /** Largest append message. */
  batchBytes: number;
  /** How long a partial batch waits for more output before it is sent anyway. */
  batchMs: number;
  /** Bytes sent but not yet acknowledged by the page; beyond this the pump waits for acks. */
  windowBytes: number;
}

// Window: 2 MB (8 batches) kept the page busiest in bench/ui-logs.ts; larger ones only added latency.
export const DEFAULT_PUMP: PumpOptions = { batchBytes: 256 * 1024, batchMs: 16, windowBytes: 2 * 1024 * 1024 };

/**
 * Moves spooled output to the page in coalesced batches under credit-based flow control.
 * Coalescing keeps a job that prints in tiny chunks at 10 MB/s from sending thousands of
 * messages a second; the window keeps a slow page from being buried (xterm.js throws data away
 * once 50 MB wait unparsed) and keeps memory bounded, since unsent bytes stay in the spool file.
 */
export class OutputPump {
  private session = 0;
  private sent = 0;
  private acked = 0;
  private active = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly source: PumpSource,
    private readonly send: (session: number, offset: number, data: Uint8Array) => void,
    private readonly opts: PumpOptions = DEFAULT_PUMP,
  ) {}

  /** A (new) page is ready: stream from `from`, forgetting whatever went to the previous one. */
  start(session: number, from: number): void {
    this.session = session;
    this.sent = this.acked = from;
    this.active = true;
    this.clearTimer();
    this.drain(true);
  }

  /** New bytes reached the spool. */
  notify(): void {
    this.drain(false);
  }

  ack(session: number, offset: number): void {
    if (!this.active || session !== this.session) return; // a stale ack from a replaced page
    this.acked = Math.max(this.acked, Math.min(offset, this.sent));
    this.drain(false);
  }

  /** Bytes the current page has acknowledged (its log offset). */
  get acknowledged(): number {
    return this.acked;
  }

  /** The next byte the pump will send; the spool beyond it is the page's backlog. */
  get sentOffset(): number {
    return this.sent;
  }

  /** A page is being streamed to (between start() and stop()). */
  get running(): boolean {
    return this.active;
  }

  get inFlight(): number {
    return this.sent - this.acked;
  }

  stop(): void {
    this.active = false;
    this.clearTimer();
  }

  private drain(flushPartial: boolean): void {
    while (this.active) {
      const unsent = this.source.size - this.sent;
      if (unsent <= 0) return;
      if (this.sent - this.acked >= this.opts.windowBytes) return; // the next ack drains again
      if (unsent < this.opts.batchBytes && !flushPartial) {
        this.arm();
        return;
      }
      const data = this.source.read(this.sent, this.opts.batchBytes);
      if (data.length === 0) return;
      const at = this.sent;
      this.sent += data.length;
      this.send(this.session, at, data);
    }
  }

  private arm(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.drain(true);
    }, this.opts.batchMs);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
