// Launch slots: a bound on the heavy part of cluster launches running at once (the head's
// setup: agent install, workdir upload, submit). Creating the instances takes no slot: it is
// one recorded intent (batched with other launches' into one state save) and one cloud call,
// so 256 submissions all reach the cloud at once instead of waiting for setups to finish.
// Setups also wait (a bounded while) for launches still on their way to the cloud's create: a
// setup is heavy on the controller (processes, uploads) and would hold a burst of creates back,
// while a create is light and lets the instances boot meanwhile.

/** The longest a setup waits for pending creates (real ms: it is about this process's time). */
export const SETUP_DEFER_MAX_MS = 30_000;

/** A counting semaphore; a waiter whose signal aborts leaves the queue with an error. */
export class Slots {
  private busy = 0;
  private readonly waiting: { grant: () => void }[] = [];
  /** Launches on their way to the cloud's create call (not yet calling it). */
  private creating = 0;
  private readonly noCreates = new Set<() => void>();

  constructor(private readonly size: number, private readonly deferMaxMs = SETUP_DEFER_MAX_MS) {}

  /** A launch begins; the returned function (idempotent) says it called the cloud's create, or ended. */
  beginCreate(): () => void {
    this.creating++;
    return once(() => {
      if (--this.creating === 0) for (const f of [...this.noCreates]) f();
    });
  }

  /** Resolves once no launch is before its setup, after deferMaxMs, or on abort. */
  createsSettled(signal?: AbortSignal): Promise<void> {
    if (this.creating === 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.noCreates.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, this.deferMaxMs);
      this.noCreates.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

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
  get load(): { busy: number; waiting: number; creating: number } {
    return { busy: this.busy, waiting: this.waiting.length, creating: this.creating };
  }
}

/** One launch's slot: taken on first need (its head's setup), given back once when the launch ends. */
export class LaunchSlot {
  private release: (() => void) | undefined;
  private taking: Promise<void> | undefined;
  private readonly created: () => void;

  constructor(private readonly slots: Slots, private readonly signal: AbortSignal) {
    this.created = slots.beginCreate();
  }

  /** The launch is calling the cloud's create (or will not): setups need not wait for it. */
  reachedCloud(): void {
    this.created();
  }

  /** At the head's setup: lets pending creates go first, then takes a slot. */
  take(): Promise<void> {
    if (!this.taking) {
      this.created();
      this.taking = this.slots.createsSettled(this.signal).then(() => this.slots.acquire(this.signal)).then((r) => void (this.release = r));
    }
    return this.taking;
  }

  done(): void {
    this.created();
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
