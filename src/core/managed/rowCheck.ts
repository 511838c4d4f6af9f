// Every managed-job row is checked when read: the store is a file on disk, and a damaged or
// planted row must never name a cluster to tear down or a task to run that the controller did
// not write. The checks describe exactly what jobRows.ts writes.
import { clusterNameProblem, printable } from '../state/clusterName';
import { UID } from '../state/rowCheck';
import { isManagedStatus } from './states';
import { UPLOAD_TOKEN } from './carryFiles';

const MAX_TIME = 1e14;
const MAX_TASKS = 64;
const MAX_TASK_TEXT = 4 << 20;
const MAX_TEXT = 64 * 1024;
const MACHINE = /^[0-9a-f]{32}$/;
const PLACE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

type Obj = Record<string, unknown>;
const isInt = (v: unknown, lo: number, hi: number) => typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi;
// eslint-disable-next-line no-control-regex
const plain = (v: unknown, max: number) => typeof v === 'string' && v.length <= max && !/[\u0000-\u001f\u007f]/.test(v);

export function managedRowProblem(row: Obj): string | undefined {
  if (!isInt(row.id, 1, 2 ** 31)) return `id ${printable(row.id)} is out of range`;
  const nameProblem = clusterNameProblem(row.name);
  if (nameProblem) return `name: ${nameProblem}`;
  if (!isManagedStatus(row.status)) return `status ${printable(row.status)} is not a managed-job status`;
  const tasks = jsonOf(row.tasks);
  if (!Array.isArray(tasks) || tasks.length < 1 || tasks.length > MAX_TASKS || !tasks.every((t) => typeof t === 'string' && t.length <= MAX_TASK_TEXT)) {
    return `tasks is not a list of 1-${MAX_TASKS} task texts`;
  }
  const envs = jsonOf(row.envs);
  if (typeof envs !== 'object' || envs === null || Array.isArray(envs) || !Object.values(envs).every((v) => typeof v === 'string')) return 'envs is not an object of strings';
  if (!isInt(row.task_index, 0, tasks.length - 1)) return `task_index ${printable(row.task_index)} is not a task of this job`;
  for (const k of ['recovery_count', 'restarts_on_errors', 'launches'] as const) if (!isInt(row[k], 0, 1e6)) return `${k} ${printable(row[k])} is out of range`;
  if (row.cluster_name !== null) {
    const p = clusterNameProblem(row.cluster_name);
    if (p) return `cluster_name: ${p}`;
  }
  if (row.cluster_uid !== null && !(typeof row.cluster_uid === 'string' && UID.test(row.cluster_uid))) return `cluster_uid ${printable(row.cluster_uid)} is not a cluster uid`;
  if (row.cluster_uid !== null && row.cluster_name === null) return 'cluster_uid is set without cluster_name';
  if (row.agent_job_id !== null && !isInt(row.agent_job_id, 1, 2 ** 31)) return `agent_job_id ${printable(row.agent_job_id)} is out of range`;
  if (row.region !== null && !(typeof row.region === 'string' && PLACE.test(row.region))) return `region ${printable(row.region)} is not valid`;
  if (row.last_error !== null && !(typeof row.last_error === 'string' && row.last_error.length <= MAX_TEXT)) return 'last_error is not text';
  if (!isInt(row.submitted_at, 0, MAX_TIME) || !isInt(row.updated_at, 0, MAX_TIME)) return 'submitted_at/updated_at is out of range';
  for (const k of ['started_at', 'ended_at'] as const) if (row[k] !== null && !isInt(row[k], 0, MAX_TIME)) return `${k} is out of range`;
  if (row.cancel_requested !== 0 && row.cancel_requested !== 1) return 'cancel_requested is not 0 or 1';
  if (row.uploads !== null && row.uploads !== undefined && !(typeof row.uploads === 'string' && UPLOAD_TOKEN.test(row.uploads))) return `uploads ${printable(row.uploads)} is not an upload token`;
  if (row.created_by_user !== null && !plain(row.created_by_user, 64)) return 'created_by_user is not a user name';
  if (row.created_by_machine !== null && !(typeof row.created_by_machine === 'string' && MACHINE.test(row.created_by_machine))) return 'created_by_machine is not a machine id';
  return undefined;
}

export function managedEventProblem(row: Obj): string | undefined {
  if (!isInt(row.id, 1, 2 ** 53) || !isInt(row.job_id, 1, 2 ** 31) || !isInt(row.ts, 0, MAX_TIME)) return 'id, job_id or ts is out of range';
  if (row.from_status !== null && !isManagedStatus(row.from_status)) return `from_status ${printable(row.from_status)} is not valid`;
  if (!isManagedStatus(row.to_status)) return `to_status ${printable(row.to_status)} is not valid`;
  if (!(typeof row.reason === 'string' && row.reason.length <= MAX_TEXT)) return 'reason is not text';
  return undefined;
}

function jsonOf(v: unknown): unknown {
  if (typeof v !== 'string') return undefined;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}
