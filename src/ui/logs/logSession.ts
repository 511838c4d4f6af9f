import type { LogFinal, LogSource, LogStatusUpdate } from './logSource';
import { LogSpool } from './logSpool';
import { DEFAULT_PUMP, OutputPump, type PumpOptions } from './outputPump';
import {
  isPageMessage, type ConnectionView, type HostMessage, type JobKey, type JobStatusView,
} from './protocol';

export interface LogSessionOptions {
  pump?: Partial<PumpOptions>;
  /**
   * A page that (re)loads is replayed only what its terminal can hold: the newest lines that fit
   * its scrollback (the count the page sends with `ready`), and never more than this many bytes
   * (from a line start). Older lines would only scroll straight out of the terminal, and a
   * hidden panel's page reloads on every reveal. Save still writes everything.
   */
  replayTailBytes?: number;
  /**
   * A page that is following and, when it acknowledges output, has more than this many bytes
   * waiting behind it (a job printing faster than the terminal can draw) is moved on, as a
   * reloaded page would be: reset to the newest lines its terminal holds, with a line saying how
   * much it skipped. Nothing leaves the spool, so Save still writes every byte. Infinity: never.
   */
  catchUpBytes?: number;
  spoolDir?: string;
  log?: (message: string) => void;
  /** The page asked for another rank's log (a valid rank of this job). */
  onOpenRank?: (rank: number) => void;
  /** The user clicked a web link in the output (already checked to be http/https). */
  onOpenLink?: (url: string) => void;
  /** The job's workdir on the node, when the local one is known: the page links tracebacks under it. */
  sourceRoot?: () => string | undefined;
  /** The user clicked a traceback path (a node path; the host maps and checks it). */
  onOpenSource?: (nodePath: string, line: number) => void;
  /** The follow ended because the job did: the window's other views show it at once (jobEvents.ts). */
  onEnded?: (final: LogFinal) => void;
}

export const DEFAULT_REPLAY_TAIL = 16 * 1024 * 1024;
// About a second of the terminal's drawing on a slow machine: far more than a 10,000-line
// scrollback holds (~1-2 MB of typical log lines), so a skip always lands past what was shown.
export const DEFAULT_CATCH_UP = 8 * 1024 * 1024;

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
  /** Lines the current page's terminal holds, from its `ready`. */
  private pageLines: number | undefined;
  /** Whether the page's view follows output, from its last ack; a paused reader is never skipped ahead. */
  private pageFollowing = true;
  /** Spool size before which catchUp() need not scan again. */
  private recheckAt = 0;
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
        this.pageLines = raw.lines;
        this.pageFollowing = true;
        this.resetPage();
        break;
      case 'ack':
        if (raw.following !== undefined) this.pageFollowing = raw.following;
        // Decided on the page's own progress reports: while it reports nothing, the pump's window
        // is full and nothing more is sent, so skipping on new output would only queue resets.
        if (raw.session !== this.session || !this.catchUp()) this.pump.ack(raw.session, raw.offset);
        break;
      case 'save':
        this.onSave();
        break;
      case 'retry':
        if (this.connection.state === 'stopped') this.startFollow();
        break;
      case 'openRank':
        if (raw.rank < (this.status.ranks ?? 1)) this.opts.onOpenRank?.(raw.rank);
        break;
      case 'openLink':
        this.opts.onOpenLink?.(raw.url);
        break;
      case 'openSource':
        this.opts.onOpenSource?.(raw.path, raw.line);
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
    const from = this.replayFrom();
    this.post({ type: 'reset', session, key: this.key, from, skipped: from });
    const nodeDir = this.opts.sourceRoot?.();
    if (nodeDir) this.post({ type: 'sourceRoot', nodeDir });
    this.post({ type: 'status', status: this.status });
    this.post({ type: 'connection', connection: this.connection });
    this.pump.start(session, from);
  }

  /** Skips a following page ahead when it is far behind (see catchUpBytes); true if it did. */
  private catchUp(): boolean {
    const limit = this.opts.catchUpBytes ?? DEFAULT_CATCH_UP;
    if (this.pageLines === undefined || !this.pageFollowing || !this.pump.running) return false;
    if (this.spool.size - this.pump.sentOffset < limit || this.spool.size < this.recheckAt) return false;
    // Lines so long that what the terminal holds starts near what was sent: keep streaming, and
    // look again (a scan of up to replayTailBytes) only after more output.
    if (this.replayFrom() - this.pump.sentOffset < limit / 2) {
      this.recheckAt = this.spool.size + limit / 2;
      return false;
    }
    this.resetPage();
    return true;
  }

  /** Where a new page's replay starts: see LogSessionOptions.replayTailBytes. */
  private replayFrom(): number {
    const tail = this.opts.replayTailBytes ?? DEFAULT_REPLAY_TAIL;
    if (this.pageLines !== undefined && Number.isFinite(tail)) return this.spool.startOfLastLines(this.pageLines, tail);
    return this.spool.size > tail ? this.spool.lineStartFrom(this.spool.size - tail) : 0;
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
    const ranks = s.numNodes ?? this.status.ranks;
    this.status = {
      status: s.status,
      exitCode: s.exitCode !== undefined ? s.exitCode : this.status.exitCode,
      reason: s.reason !== undefined ? s.reason : this.status.reason,
      startedAt: s.startedAt !== undefined ? s.startedAt : this.status.startedAt,
      endedAt: s.endedAt !== undefined ? s.endedAt : this.status.endedAt,
      final: false,
    };
    if (ranks !== undefined) this.status.ranks = ranks;
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
    this.opts.onEnded?.(final);
  }

  private resumed(): void {
    if (this.connection.state === 'reconnecting') this.setConnection({ state: 'live' });
  }

  private setConnection(c: ConnectionView): void {
    this.connection = c;
    this.post({ type: 'connection', connection: c });
  }
}
