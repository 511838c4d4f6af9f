// Launch slots: a bound on the heavy part of cluster launches running at once (the head's
// setup: agent install, workdir upload, submit). Creating the instances takes no slot: it is
// one recorded intent (batched with other launches' into one state save) and one cloud call,
// so 256 submissions all reach the cloud at once instead of waiting for setups to finish.

/** A counting semaphore; a waiter whose signal aborts leaves the queue with an error. */
export class Slots {
  private busy = 0;
  private readonly waiting: { grant: () => void }[] = [];

  constructor(private readonly size: number) {}

  /** Resolves with the release function once a slot is ours. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    const release = once(() => {
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.busy--;
    });
    if (this.busy < this.size) {
      this.busy++;
      return Promise.resolve(release);
    }
    if (signal?.aborted) return Promise.reject(new Error('cancelled while waiting for a launch slot'));
    return new Promise((resolve, reject) => {
      const w = { grant: () => (signal?.removeEventListener('abort', onAbort), resolve(release)) };
      const onAbort = () => {
        const i = this.waiting.indexOf(w);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new Error('cancelled while waiting for a launch slot'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(w);
    });
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Slots in use and launches waiting for one (for tests and the bench). */
  get load(): { busy: number; waiting: number } {
    return { busy: this.busy, waiting: this.waiting.length };
  }
}

/** One launch's slot: taken on first need (its head's setup), given back once when the launch ends. */
export class LaunchSlot {
  private release: (() => void) | undefined;
  private taking: Promise<void> | undefined;

  constructor(private readonly slots: Slots, private readonly signal: AbortSignal) {}

  take(): Promise<void> {
    this.taking ??= this.slots.acquire(this.signal).then((r) => void (this.release = r));
    return this.taking;
  }

  done(): void {
    if (this.release) this.release();
    else void this.taking?.then(() => this.release?.(), () => undefined);
  }
}

function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}
