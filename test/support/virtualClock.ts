// A discrete-event clock for provision tests: time stands still while any party can still
// run, and jumps to the next timer only when every party is waiting on one. A schedule then
// takes the same path on a loaded machine as on an idle one, and a seed reproduces it.
import type { Clock } from '../../src/core/provision/clock';
import { asyncWritesInFlight } from '../../src/core/state/atomicWrite';

interface Timer {
  at: number;
  seq: number;
  fire(): void;
}

export interface VirtualClock extends Clock {
  /** Timers not yet fired (tests: a schedule must leave none behind). */
  pending(): number;
}

/**
 * "Idle" = the microtask queue is drained and a macrotask turn has passed (setImmediate):
 * the provision core and the fake cloud make no other kind of progress, and the state store's
 * saves (written off the thread) are waited out. Timers due at the same time fire in the order they were
 * set, one per idle turn, so interleavings depend on the code only.
 */
export function virtualClock(epoch = Date.UTC(2024, 0, 1)): VirtualClock {
  let now = epoch;
  let seq = 0;
  const timers: Timer[] = [];
  let scheduled = false;

  const step = () => {
    scheduled = false;
    if (!timers.length) return;
    // A store save runs on libuv's pool (atomicWrite.ts): not idle until it is done.
    if (asyncWritesInFlight() > 0) {
      scheduled = true;
      setTimeout(step, 1);
      return;
    }
    timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const t = timers.shift()!;
    now = Math.max(now, t.at);
    t.fire();
    wake();
  };
  const wake = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(step);
  };

  return {
    now: () => now,
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const t: Timer = {
          at: now + Math.max(0, ms),
          seq: seq++,
          fire: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          const i = timers.indexOf(t);
          if (i >= 0) timers.splice(i, 1);
          resolve();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        timers.push(t);
        wake();
      });
    },
    pending: () => timers.length,
  };
}
