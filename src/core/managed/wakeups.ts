// Per-job interrupts for the controller: a nap a cancel cuts short, and an AbortSignal a cancel
// (or the controller's stop) aborts, handed to the job's launch.
import { setMaxListeners } from 'node:events';
import type { Clock } from '../provision';

export class Wakeups {
  private readonly signals = new Map<number, AbortController>();
  private readonly wakers = new Map<number, Set<() => void>>();
  private readonly all = new AbortController();

  constructor(private readonly clock: Clock) {
    // Every job's nap listens on it: hundreds of jobs are the normal case, not a leak.
    setMaxListeners(0, this.all.signal);
  }

  get stopped(): boolean {
    return this.all.signal.aborted;
  }

  /** `ms` of clock time, ended early by interrupt(id) or stop(). */
  nap(id: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.wakers.get(id) ?? new Set();
      this.wakers.set(id, set);
      const done = () => {
        set.delete(done);
        resolve();
      };
      set.add(done);
      void this.clock.sleep(ms, this.all.signal).then(done);
    });
  }

  /** The controller's own sleep (its scan of the store), ended by stop(). */
  sleep(ms: number): Promise<void> {
    return this.clock.sleep(ms, this.all.signal);
  }

  signalFor(id: number): AbortSignal {
    let c = this.signals.get(id);
    if (!c) this.signals.set(id, (c = new AbortController()));
    if (this.stopped) c.abort();
    return c.signal;
  }

  isInterrupted(id: number): boolean {
    return !!this.signals.get(id)?.signal.aborted;
  }

  interrupt(id: number): void {
    this.signals.get(id)?.abort();
    for (const w of [...(this.wakers.get(id) ?? [])]) w();
  }

  forget(id: number): void {
    this.signals.delete(id);
    this.wakers.delete(id);
  }

  stop(): void {
    this.all.abort();
    for (const id of new Set([...this.signals.keys(), ...this.wakers.keys()])) this.interrupt(id);
  }
}
