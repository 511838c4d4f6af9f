import { isProviderError, type ProviderErrorKind } from '../clouds/provider';
import type { Clock } from './clock';

/** Why a provider call failed: the provider's own kind, or "unknown" for an untyped throw. */
export type CallFailureKind = ProviderErrorKind | 'unknown';

/** A cloud call's outcome as data, so loops branch on flags instead of catching. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; kind: CallFailureKind; message: string; hint?: string };

/** Runs one provider call; any throw becomes a typed failure (untyped ones are "unknown"). */
export async function call<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    if (isProviderError(e)) return { ok: false, kind: e.kind, message: e.message, hint: e.hint };
    return { ok: false, kind: 'unknown', message: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Retries transient (and unknown: a dropped connection looks like one) failures with
 * doubling backoff; capacity/quota/auth/config come back at once.
 */
export async function callWithRetry<T>(
  fn: () => Promise<T>,
  opts: { clock: Clock; retries: number; backoffMs: number; signal?: AbortSignal },
): Promise<Outcome<T>> {
  let delay = opts.backoffMs;
  let out = await call(fn);
  for (let tries = 0; !out.ok && isRetryable(out.kind) && tries < opts.retries && !opts.signal?.aborted; tries++) {
    await opts.clock.sleep(delay, opts.signal);
    delay *= 2;
    out = await call(fn);
  }
  return out;
}

export function isRetryable(kind: CallFailureKind): boolean {
  return kind === 'transient' || kind === 'unknown';
}

export function describeFailure(o: { kind: CallFailureKind; message: string; hint?: string }): string {
  return `${o.kind}: ${o.message}${o.hint ? ` (${o.hint})` : ''}`;
}
