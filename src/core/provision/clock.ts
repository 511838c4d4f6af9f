/**
 * Time as the provision loop sees it. Production uses the wall clock; tests use a scaled
 * clock so a 60 s grace window or a 3 s shutdown passes in milliseconds with the same code.
 */
export interface Clock {
  now(): number;
  /** Resolves after `ms` of this clock's time, or early (without throwing) when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export const realClock: Clock = { now: () => Date.now(), sleep: realSleep };

/**
 * Runs `scale` times faster than the wall clock, anchored at `epoch` (wall ms). Two processes
 * given the same epoch and scale agree on the time, which the kill -9 runs rely on.
 */
export function scaledClock(scale: number, epoch = Date.now()): Clock {
  return {
    now: () => Math.round(epoch + (Date.now() - epoch) * scale),
    sleep: (ms, signal) => realSleep(ms / scale, signal),
  };
}
