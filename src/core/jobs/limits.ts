// The ranges job arguments take, in one place (the CLI parses with them; the agent enforces
// the same bounds on its side).

/** Job ids: 1 .. 2^53-1, every one exactly representable as a JSON number. */
export const JOB_ID_MAX = Number.MAX_SAFE_INTEGER;
/** Cancel's SIGTERM-to-SIGKILL grace, seconds (the agent's MAX_GRACE in cancel.py). */
export const GRACE_SECONDS_MAX = 24 * 3600;
/** A multi-node job's rank: 0 .. num_nodes-1, and a cluster has at most 1000 nodes. */
export const RANK_MAX = 999;
/** Autostop idle minutes: up to ten years. */
export const IDLE_MINUTES_MAX = 10 * 366 * 24 * 60;
