// Shapes of the agent's serve protocol (agent/README.md is the reference).

export const JOB_STATUSES = [
  'INIT', 'PENDING', 'SETTING_UP', 'RUNNING', 'FAILED_DRIVER',
  'SUCCEEDED', 'FAILED', 'FAILED_SETUP', 'CANCELLED',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TERMINAL_STATUSES: ReadonlySet<JobStatus> = new Set<JobStatus>([
  'FAILED_DRIVER', 'SUCCEEDED', 'FAILED', 'FAILED_SETUP', 'CANCELLED',
]);

export interface JobSpec {
  name?: string;
  user?: string;
  setup?: string;
  run?: string;
  envs?: Record<string, string>;
  /** Like envs for the job; the agent keeps only their names at rest. */
  secrets?: Record<string, string>;
  workdir?: string;
  resources?: { cpus?: number; memory?: number; accelerators?: Record<string, number> };
  num_nodes?: number;
}

export interface SubmitResult {
  job_id: number;
  status: JobStatus;
}

export interface JobRow {
  job_id: number;
  name: string | null;
  user: string | null;
  status: JobStatus;
  submitted_at: number | null;
  started_at: number | null;
  ended_at: number | null;
  exit_code: number | null;
  reason: string | null;
  cpus: number | null;
  memory: number | null;
  accelerators: Record<string, number> | null;
  num_nodes: number | null;
  driver_pid: number | null;
}

export interface QueueAnswer {
  db_id: string | null;
  cursor: number;
  full: boolean;
  /** Every key of JobRow, maybe more (a newer agent's columns, e.g. `isolation`). */
  columns: string[];
  /** Arrays in `columns` order, checked column by column at the boundary (protocolChecks.ts). */
  rows: unknown[][];
}

export interface LogsFinal {
  job_id: number;
  offset: number;
  status: JobStatus;
  exit_code: number | null;
  reason: string | null;
  terminal: boolean;
  /** Present when an `unfollow` ended the stream. */
  stopped?: boolean;
}

/**
 * One chunk of a `logs` stream: the bytes starting at byte `offset` of the log. On the wire a
 * header line `{"id","event":"log","offset","bytes"}` is followed by exactly `bytes` raw bytes
 * (no base64, no JSON string: the log stream's cost is the copy, not the parse).
 */
export interface LogEvent {
  event: 'log';
  offset: number;
  data: Buffer;
}

/** The header line of a LogEvent as it arrives. */
export interface LogHeader {
  event: 'log';
  offset: number;
  bytes: number;
}

/** The largest chunk a header may announce; the agent reads 512 KiB at a time. */
export const MAX_LOG_CHUNK = 64 * 1024 * 1024;

export interface CancelResult {
  cancelled: number[];
  already_terminal: number[];
  /** Seconds from SIGTERM to SIGKILL that the agent applied. */
  grace: number;
}

/** Rows as objects; the answer passed its check (every JobRow column present, each typed). */
export function rowsToJobs(q: QueueAnswer): JobRow[] {
  return q.rows.map((r) => Object.fromEntries(q.columns.map((c, i) => [c, r[i]])) as unknown as JobRow);
}
