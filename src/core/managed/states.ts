// A managed job's statuses, as SkyPilot names them, and the only moves between them. The
// controller records a status before the step it names, so a status is never taken back:
// a restarted controller resumes from it, it does not reconsider it.

export const MANAGED_STATUSES = [
  'PENDING', 'STARTING', 'RUNNING', 'RECOVERING', 'SUCCEEDED', 'FAILED', 'FAILED_SETUP',
  'FAILED_NO_RESOURCE', 'FAILED_CONTROLLER', 'CANCELLING', 'CANCELLED',
] as const;

export type ManagedStatus = (typeof MANAGED_STATUSES)[number];

export const TERMINAL: ReadonlySet<ManagedStatus> = new Set<ManagedStatus>([
  'SUCCEEDED', 'FAILED', 'FAILED_SETUP', 'FAILED_NO_RESOURCE', 'FAILED_CONTROLLER', 'CANCELLED',
]);

export function isManagedStatus(v: unknown): v is ManagedStatus {
  return (MANAGED_STATUSES as readonly unknown[]).includes(v);
}

export function isTerminal(s: ManagedStatus): boolean {
  return TERMINAL.has(s);
}

const FAILURES: ManagedStatus[] = ['FAILED', 'FAILED_SETUP', 'FAILED_NO_RESOURCE', 'FAILED_CONTROLLER'];

/**
 * Every allowed move. RUNNING → STARTING is the next task of a pipeline (its index must grow,
 * store.ts checks it); a restart after the user's own failure goes through RECOVERING like a
 * preemption. Nothing leaves a terminal status, and nothing returns to PENDING.
 */
const MOVES: Record<ManagedStatus, readonly ManagedStatus[]> = {
  PENDING: ['STARTING', 'CANCELLING', 'CANCELLED', ...FAILURES],
  STARTING: ['RUNNING', 'RECOVERING', 'CANCELLING', ...FAILURES],
  RUNNING: ['STARTING', 'RECOVERING', 'SUCCEEDED', 'CANCELLING', ...FAILURES],
  RECOVERING: ['RUNNING', 'CANCELLING', ...FAILURES],
  CANCELLING: ['CANCELLED', 'FAILED_CONTROLLER'],
  SUCCEEDED: [],
  FAILED: [],
  FAILED_SETUP: [],
  FAILED_NO_RESOURCE: [],
  FAILED_CONTROLLER: [],
  CANCELLED: [],
};

/** Why `from → to` is refused, or undefined when it is a forward move (staying put is allowed). */
export function moveProblem(from: ManagedStatus, to: ManagedStatus): string | undefined {
  if (from === to) return undefined;
  if (MOVES[from].includes(to)) return undefined;
  return isTerminal(from) ? `the job already ended (${from}); it cannot become ${to}` : `${from} cannot go back or over to ${to}`;
}
