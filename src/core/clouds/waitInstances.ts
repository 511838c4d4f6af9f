import { ProviderError, type InstanceInfo } from './provider';

/**
 * Polls until every instance reached `goal` (for terminated: none left alive at all), or
 * throws a transient error at the bound / on abort. Query errors propagate as they are.
 */
export async function waitUntil(
  query: () => Promise<InstanceInfo[]>, goal: 'running' | 'stopped' | 'terminated', what: string,
  timeoutMs: number, pollMs: number, signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const live = (await query()).filter((i) => i.status !== 'terminated');
    if (goal === 'terminated' ? live.length === 0 : live.length > 0 && live.every((i) => i.status === goal)) return;
    if (signal?.aborted) throw new ProviderError('transient', `waiting for ${what} to be ${goal} was cancelled`);
    if (Date.now() >= deadline) throw new ProviderError('transient', `${what} not ${goal} after ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, Math.min(pollMs, Math.max(0, deadline - Date.now()))));
  }
}
