// One runtime check per agent answer (see commands.ts for the types, agent/README.md for the
// shapes). AgentRpc runs them on every result, so a malformed answer is an AgentProtocolError
// naming the command and the field, never a crash further on. Extra keys and extra queue
// columns pass: a newer agent may add them (forward compatibility).
import type { AgentCommands, Hello } from './commands';
import { JOB_STATUSES, MAX_LOG_CHUNK, type JobRow, type LogHeader, type QueueAnswer } from './protocol';
import {
  bool, Check, check, describe, either, field, int, intFrom, listOf, nullable, num, obj, oneOf, optional, recordOf, str,
} from './shape';

const jobId = intFrom(1);
const count = intFrom(0);
const jobIds = listOf(jobId);
const status = oneOf(JOB_STATUSES);
const accelerators = nullable(recordOf(num));
const time = nullable(num);

const JOB_COLUMNS: { [K in keyof JobRow]-?: Check<JobRow[K]> } = {
  job_id: jobId,
  name: nullable(str),
  user: nullable(str),
  status,
  submitted_at: time,
  started_at: time,
  ended_at: time,
  exit_code: nullable(int),
  reason: nullable(str),
  cpus: nullable(num),
  memory: nullable(num),
  accelerators,
  num_nodes: nullable(intFrom(1)),
  driver_pid: nullable(intFrom(1)),
};
const REQUIRED = Object.keys(JOB_COLUMNS) as (keyof JobRow)[];

const list = check<unknown[]>((v, at) => (Array.isArray(v) ? undefined : `${at}: expected a list, got ${describe(v)}`));
const queueHead = obj({ db_id: nullable(str), cursor: count, full: bool, columns: listOf(str), rows: listOf(list) });

/** Rows are arrays in `columns` order: every JobRow column must be there, each value typed. */
const queue: Check<QueueAnswer> = (v, at) => {
  const p = queueHead(v, at);
  if (p) return p;
  const q = v as QueueAnswer;
  const where = REQUIRED.map((c) => q.columns.indexOf(c));
  const missing = REQUIRED.filter((_, i) => where[i] < 0);
  if (missing.length) return `${field(at, 'columns')}: missing ${missing.join(', ')}`;
  for (let r = 0; r < q.rows.length; r++) {
    const row = q.rows[r];
    // Paths are built only for a value that fails (10,000 rows hold 150,000 values).
    const here = () => `${field(at, 'rows')}[${r}]`;
    if (row.length !== q.columns.length) return `${here()}: expected ${q.columns.length} values (one per column), got ${describe(row)}`;
    for (let i = 0; i < REQUIRED.length; i++) {
      const c = JOB_COLUMNS[REQUIRED[i]];
      if (c(row[where[i]], '') !== undefined) return c(row[where[i]], `${here()}.${REQUIRED[i]}`);
    }
  }
  return undefined;
};

const amounts = obj({ cpus: num, memory: num, accelerators });

const autostop = obj({
  idle_minutes: num,
  down: bool,
  wait_for: nullable(str),
  action: nullable(str),
  idle_seconds: nullable(num),
  fires_in: nullable(num),
  fired_at: nullable(num),
  held_until: optional(nullable(num)),
  last_result: nullable(obj({ problems: listOf(str) })),
});

const statusFields = {
  capacity: amounts,
  capacity_source: oneOf(['declared', 'detected'] as const),
  used: amounts,
  counts: recordOf(count),
  running: count,
  pending: count,
  cluster: obj({ cluster_name: optional(nullable(str)), node_ips: optional(nullable(listOf(str))) }),
  boot_id: nullable(str),
  daemon_pid: nullable(intFrom(1)),
  version: str,
  schema_version: count,
  autostop: nullable(autostop),
  isolation: either(
    obj({ mechanism: oneOf(['cgroup2', 'cgroup1'] as const), cgroup_root: str }),
    obj({ mechanism: oneOf(['marker'] as const), why: str }),
  ),
};

export const RESULT_CHECKS: { [K in keyof AgentCommands]: Check<AgentCommands[K]['result']> } = {
  version: obj({ version: str, protocol: intFrom(0), schema_version: count, python: str, base_dir: str, marker_prefix: str }),
  submit: obj({ job_id: jobId, status }),
  queue,
  cancel: obj({ cancelled: jobIds, already_terminal: jobIds, grace: num }),
  logs: obj({
    job_id: jobId, offset: count, status, exit_code: nullable(int), reason: nullable(str), terminal: bool, stopped: optional(bool),
  }),
  unfollow: obj({ stopped: bool }),
  status: obj(statusFields),
  tick: obj({ failed: jobIds, escalated: jobIds, started: jobIds }),
  configure: obj({ ...statusFields, started: jobIds }),
  shutdown: obj({ stopped: bool, daemon_pid: nullable(intFrom(1)), escalated: jobIds }),
};

export const HELLO: Check<Hello> = obj({
  event: oneOf(['hello'] as const), version: str, protocol: intFrom(0), pid: intFrom(1), base_dir: str,
});

/** Whether a log header's length can be believed (else the raw bytes after it cannot be found). */
export const logBytesOk = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_LOG_CHUNK;

export const LOG_HEADER: Check<LogHeader> = obj({
  event: oneOf(['log'] as const),
  offset: count,
  bytes: check<number>((v, at) => (logBytesOk(v) ? undefined : `${at}: expected an integer from 0 to ${MAX_LOG_CHUNK}, got ${describe(v)}`)),
});

/** An error answer: `{code, message, details?}`. */
export const ERROR = obj({ code: str, message: str });
