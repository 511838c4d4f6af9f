/** Waits and bounds of the provision loop, in clock ms (see clock.ts). */
export interface ProvisionTiming {
  /** Leak invariant 3: an INIT cluster younger than this is never read as gone. */
  launchGraceMs: number;
  /**
   * An id the run call named that no listing has shown yet is not gone until this long after
   * the run call's answer: listings lag minutes, not hours, and the id exists or existed, so a
   * live instance is listed by then (named.ts).
   */
  namedListingLagMs: number;
  /** Between two queries while waiting for a state. */
  pollMs: number;
  /** How long create → running may take before the attempt fails. */
  runningTimeoutMs: number;
  /** How long terminate/stop may take to show in the provider's answers. */
  confirmTimeoutMs: number;
  /** Re-issue terminate/stop when an instance still shows live after this (silent no-ops). */
  reissueAfterMs: number;
  /** Retries of a call that failed with a transient error. */
  transientRetries: number;
  /** First backoff; doubles per retry. */
  backoffMs: number;
}

export const DEFAULT_TIMING: ProvisionTiming = {
  launchGraceMs: 60_000,
  namedListingLagMs: 6 * 60 * 60_000,
  pollMs: 1_000,
  runningTimeoutMs: 10 * 60_000,
  confirmTimeoutMs: 5 * 60_000,
  reissueAfterMs: 15_000,
  transientRetries: 4,
  backoffMs: 1_000,
};
