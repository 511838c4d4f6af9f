// Types for build-waiter.mjs (used from bench/agent.ts).
export function waiterPath(machine?: string): string;
export function buildWaiters(): { said: string[]; hostOk: boolean };
