// Types for ci.mjs (used from the TypeScript tests).
export function inCi(env?: Record<string, string | undefined>): boolean;
