// The Channel both transports hand out. Output that arrives before a callback is registered is
// held and replayed, so a caller that registers after `await openChannel()` loses nothing.
import type { Channel } from './types';

export interface ChannelIo {
  write(b: Buffer | string): void;
  end(): void;
  close(): void;
}

export class StreamChannel implements Channel {
  private dataCb: ((b: Buffer) => void) | undefined;
  private stderrCb: ((b: Buffer) => void) | undefined;
  private readonly closeCbs: Array<(code: number | null) => void> = [];
  private readonly pendingData: Buffer[] = [];
  private readonly pendingStderr: Buffer[] = [];
  private closed = false;
  private exitCode: number | null = null;

  constructor(private readonly io: ChannelIo) {}

  // Fed by the transport.
  pushData(b: Buffer): void { if (this.dataCb) this.dataCb(b); else this.pendingData.push(b); }
  pushStderr(b: Buffer): void { if (this.stderrCb) this.stderrCb(b); else this.pendingStderr.push(b); }
  finish(code: number | null): void {
    if (this.closed) return;
    this.closed = true;
    this.exitCode = code;
    for (const cb of this.closeCbs.splice(0)) cb(code);
  }

  get isClosed(): boolean { return this.closed; }

  write(b: Buffer | string): void { if (!this.closed) this.io.write(b); }
  end(): void { if (!this.closed) this.io.end(); }
  close(): void { if (!this.closed) this.io.close(); }

  onData(cb: (b: Buffer) => void): void {
    this.dataCb = cb;
    for (const b of this.pendingData.splice(0)) cb(b);
  }

  onStderr(cb: (b: Buffer) => void): void {
    this.stderrCb = cb;
    for (const b of this.pendingStderr.splice(0)) cb(b);
  }

  onClose(cb: (code: number | null) => void): void {
    if (this.closed) queueMicrotask(() => cb(this.exitCode));
    else this.closeCbs.push(cb);
  }
}
