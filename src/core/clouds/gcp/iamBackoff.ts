// How long to wait while IAM catches up (a service account created moments ago, a project
// policy changed by someone else meanwhile): doubling from the first wait, bounded, and a
// bounded number of tries. One rule for every caller that waits on IAM.

export const IAM_MAX_TRIES = 8;
const MAX_BACKOFF_MS = 15_000;

/** The wait after failed try `attempt` (1-based). */
export function iamBackoffMs(firstMs: number, attempt: number): number {
  return Math.min(firstMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
}

export function sleepMs(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
