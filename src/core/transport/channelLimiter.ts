// Caps concurrent channels on one SSH connection. sshd refuses session channels beyond
// MaxSessions (default 10) and ssh2 does not queue, so opens wait here, first come first served.

export type Release = () => void;

interface Waiter { grant: (r: Release) => void; }

export class ChannelLimiter {
  private active = 0;
  private capacity: number;
  private lastShrink = 0;
  private readonly waiters: Waiter[] = [];

  constructor(private readonly max = 8) {
    if (!(max >= 1)) throw new Error(`ChannelLimiter: max must be >= 1, got ${max}`);
    this.capacity = max;
  }

  get inUse(): number { return this.active; }
  get queued(): number { return this.waiters.length; }
  get limit(): number { return this.capacity; }

  /** Resolves with a release function once a slot is free. Aborting the signal leaves the queue. */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.active < this.capacity && this.waiters.length === 0) return Promise.resolve(this.grant());
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        grant: (r) => { signal?.removeEventListener('abort', onAbort); resolve(r); },
      };
      const onAbort = (): void => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /**
   * The server refused a channel although we were under our cap (its MaxSessions is lower, or it
   * has not yet freed a closed session) while `open` of our channels were open: run with that
   * many slots for a while.
   */
  shrink(open: number): void {
    this.capacity = Math.max(1, Math.min(this.capacity, open));
    this.lastShrink = Date.now();
  }

  /**
   * A channel opened fine. Refusals can be transient (sshd frees a closed session a moment after
   * we see the close), so once refusals stop the cap grows back, one slot at a time. Against a
   * server whose real limit is lower this costs one refused (and retried) open now and then.
   */
  opened(): void {
    if (this.capacity >= this.max) return;
    if (Date.now() - this.lastShrink > 250) {
      this.capacity++;
      this.lastShrink = Date.now();
      this.pump();
    }
  }

  /** A new connection: back to the configured cap. */
  reset(): void {
    this.capacity = this.max;
    this.pump();
  }

  private grant(): Release {
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.pump();
    };
  }

  private pump(): void {
    while (this.waiters.length && this.active < this.capacity) this.waiters.shift()!.grant(this.grant());
  }
}
