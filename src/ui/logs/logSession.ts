import type { LogFinal, LogSource, LogStatusUpdate } from './logSource';
import { LogSpool } from './logSpool';
import { DEFAULT_PUMP, OutputPump, type PumpOptions } from './outputPump';
import {
  isPageMessage, type ConnectionView, type HostMessage, type JobKey, type JobStatusView,
} from './protocol';

export interface LogSessionOptions {
  pump?: Partial<PumpOptions>;
  /**
   * A page that (re)loads gets at most about this many of the newest bytes (from a line start):
   * its scrollback holds far less anyway, and a hidden panel's page reloads on every reveal.
   * Save still writes everything.
   */
  replayTailBytes?: number;
  spoolDir?: string;
  log?: (message: string) => void;
}

export const DEFAULT_REPLAY_TAIL = 16 * 1024 * 1024;

/**
 * One job's log as a panel sees it, without vscode: follows the source into a spool, tracks
 * status and connection health, and streams to whichever page is currently loaded. The
 * webview wrapper passes page messages to handle() and supplies `post` and `onSave`.
 */
export class LogSession {
  private readonly spool: LogSpool;
  private readonly pump: OutputPump;
  private session = 0;
  /** '' until the source reports one (the page shows "Following"). */
  private status: JobStatusView = { status: '', exitCode: null, reason: null, startedAt: null, endedAt: null, final: false };
  private connection: ConnectionView = { state: 'live' };
  private follow: AbortController | undefined;
  private disposed = false;
  /** Settles when the current follow does; tests and dispose wait on it. */
  following: Promise<void> = Promise.resolve();

  constructor(
    readonly key: JobKey,
    private readonly source: LogSource,
    private readonly post: (m: HostMessage) => void,
    private readonly onSave: () => void,
    private readonly opts: LogSessionOptions = {},
  ) {
    this.spool = new LogSpool(opts.spoolDir);
    this.pump = new OutputPump(
      this.spool,
      (session, offset, data) => this.post({ type: 'append', session, offset, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64') }),
      { ...DEFAULT_PUMP, ...opts.pump },
    );
  }

  /** Starts following from the first byte (see LogPanelManager for why restores do too). */
  start(): void {
    this.startFollow();
  }

  /** Bytes received from the source. */
  get received(): number {
    return this.spool.size;
  }

  get acknowledged(): number {
    return this.pump.acknowledged;
  }

  get view(): { status: JobStatusView; connection: ConnectionView } {
    return { status: this.status, connection: this.connection };
  }

  handle(raw: unknown): void {
    if (this.disposed || !isPageMessage(raw)) return;
    switch (raw.type) {
      case 'ready':
        this.resetPage();
        break;
      case 'ack':
        this.pump.ack(raw.session, raw.offset);
        break;
      case 'save':
        this.onSave();
        break;
      case 'retry':
        if (this.connection.state === 'stopped') this.startFollow();
        break;
      case 'pong':
        break;
    }
  }

  /** The page went away (panel hidden without retained context): stop sending until it is ready again. */
  pageGone(): void {
    this.pump.stop();
  }

  copyTo(target: string): Promise<number> {
    return this.spool.copyTo(target);
  }

  /** The whole log so far, for targets that are not plain files (remote save). */
  readAll(): Buffer {
    return this.spool.read(0, this.spool.size);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.follow?.abort();
    this.pump.stop();
    this.spool.dispose();
  }

  private resetPage(): void {
    const session = ++this.session;
    const tail = this.opts.replayTailBytes ?? DEFAULT_REPLAY_TAIL;
    const from = this.spool.size > tail ? this.spool.lineStartFrom(this.spool.size - tail) : 0;
    this.post({ type: 'reset', session, key: this.key, from, skipped: from });
    this.post({ type: 'status', status: this.status });
    this.post({ type: 'connection', connection: this.connection });
    this.pump.start(session, from);
  }

  private startFollow(): void {
    const ac = new AbortController();
    this.follow = ac;
    this.setConnection({ state: 'live' });
    const from = this.spool.size;
    this.following = this.source
      .follow(from, (data, offset) => this.onChunk(data, offset), {
        signal: ac.signal,
        onReconnect: (e) => this.live(ac) && this.setConnection({ state: 'reconnecting', message: e.message }),
        onStatus: (s) => this.live(ac) && this.onStatus(s),
        onResumed: () => this.live(ac) && this.resumed(),
      })
      .then(
        (final) => this.live(ac) && this.onFinal(final),
        (e: Error) => {
          if (!this.live(ac)) return;
          this.opts.log?.(`following ${this.key.cluster} #${this.key.jobId} stopped: ${e.message}`);
          this.setConnection({ state: 'stopped', message: e.message });
        },
      )
      .then(() => undefined);
  }

  /** Callbacks from a follow that was aborted or replaced are ignored. */
  private live(ac: AbortController): boolean {
    return !this.disposed && this.follow === ac && !ac.signal.aborted;
  }

  private onChunk(data: Buffer, offset: number): void {
    if (this.disposed) return;
    const expected = this.spool.size;
    // Sources resume by offset, so overlap should not happen; if it does, drop what we have.
    const skip = Math.max(0, expected - offset);
    if (offset > expected) this.opts.log?.(`log of ${this.key.cluster} #${this.key.jobId}: ${offset - expected} bytes missing at ${expected}`);
    if (skip >= data.length) return;
    this.spool.append(skip ? data.subarray(skip) : data);
    this.resumed();
    this.pump.notify();
  }

  private onStatus(s: LogStatusUpdate): void {
    this.status = {
      status: s.status,
      exitCode: s.exitCode !== undefined ? s.exitCode : this.status.exitCode,
      reason: s.reason !== undefined ? s.reason : this.status.reason,
      startedAt: s.startedAt !== undefined ? s.startedAt : this.status.startedAt,
      endedAt: s.endedAt !== undefined ? s.endedAt : this.status.endedAt,
      final: false,
    };
    this.post({ type: 'status', status: this.status });
    this.resumed();
  }

  private onFinal(final: LogFinal | undefined): void {
    if (!final) {
      this.setConnection({ state: 'stopped', message: 'Following stopped before the job ended.' });
      return;
    }
    const endedAt = this.status.endedAt ?? (this.status.startedAt !== null ? Date.now() / 1000 : null);
    this.status = { ...this.status, status: final.status, exitCode: final.exit_code, reason: final.reason, endedAt, final: true };
    this.post({ type: 'status', status: this.status });
    this.setConnection({ state: 'ended' });
  }

  private resumed(): void {
    if (this.connection.state === 'reconnecting') this.setConnection({ state: 'live' });
  }

  private setConnection(c: ConnectionView): void {
    this.connection = c;
    this.post({ type: 'connection', connection: c });
  }
}
