// Types for procTree.mjs.
export function processesOf(root: number, pgid: number): number[];
export function isAlive(pid: number): boolean;
export function stopTree(pgid: number, graceMs: number, onKill?: (n: number, pids: number[]) => void): Promise<void>;
