import { getCluster } from '../state';
import { realClock, type AttemptReport, type FailureKind } from '../provision';
import type { OpsContext } from './context';
import { OpsError } from './errors';

// `--retry-until-up`: when every placement failed for want of capacity (or quota, or a
// passing error), provisioning starts over after a wait that grows, until the cluster is up or
// the signal (Ctrl-C, the editor's Cancel) aborts. A failure no wait can fix stops at once.

/** Waits between rounds: 30 s, growing by half each time, never above 10 min (sky's backoff is of this kind). */
export const RETRY_FIRST_MS = 30_000;
export const RETRY_MAX_MS = 600_000;

const RETRYABLE: ReadonlySet<FailureKind> = new Set<FailureKind>(['capacity', 'quota', 'transient', 'unknown']);

/** Why another round would not help, or undefined when it may. */
function whyNotRetry(attempts: AttemptReport[]): string | undefined {
  if (!attempts.length) return 'no placement was tried';
  const stop = attempts.find((a) => a.outcome !== 'up' && a.kind && !RETRYABLE.has(a.kind));
  return stop ? `${stop.kind} failure` : undefined;
}

/**
 * Runs `launchRound` (one pass of the provision loop over the placements) until it succeeds.
 * `onAttempt` of the round is wrapped so each round's attempts are judged.
 */
export async function retryUntilUp<T>(
  ctx: OpsContext, name: string, signal: AbortSignal | undefined,
  launchRound: (onAttempt: (a: AttemptReport) => void) => Promise<T>,
): Promise<T> {
  const clock = ctx.clock ?? realClock;
  let wait = RETRY_FIRST_MS;
  for (let round = 1; ; round++) {
    const attempts: AttemptReport[] = [];
    try {
      return await launchRound((a) => attempts.push(a));
    } catch (e) {
      if (!(e instanceof OpsError) || e.kind !== 'failed' || signal?.aborted) throw e;
      const stop = whyNotRetry(attempts);
      if (stop) throw new OpsError('failed', `${e.message}\n--retry-until-up stops: the ${stop} is not fixed by waiting`);
      // A row left behind (a cleanup it could not prove) must be settled first, by down.
      if (await ctx.store.read((db) => getCluster(db, name))) throw e;
      ctx.warn(`round ${round}: no placement came up; trying again in ${Math.round(wait / 1000)} s (--retry-until-up; Ctrl-C stops)`);
      try {
        await clock.sleep(wait, signal);
      } catch {
        // aborted while waiting
      }
      if (signal?.aborted) throw new OpsError('failed', `launch of ${name} cancelled while waiting to retry; nothing is running`);
      wait = Math.min(RETRY_MAX_MS, Math.round(wait * 1.5));
    }
  }
}
