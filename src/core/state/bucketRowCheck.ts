import { bucketNameProblem } from '../task/bucketNames';
import type { StoreKind } from '../storage/types';
import { printable } from './clusterName';
import { UID } from './rowCheck';

// Every bucket row is checked when read, as cluster rows are (rowCheck.ts): the state file can
// come with a cloned repository, and a bucket row decides what a down deletes. A row that fails
// is refused: never acted on, only shown.

const STORES: readonly StoreKind[] = ['s3', 'gcs', 'azure', 'r2'];
const STATUSES = ['CREATING', 'READY', 'DELETING'];
const PLACE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MACHINE = /^[0-9a-f]{32}$/;
const MAX_TIME = 1e14;

type Obj = Record<string, unknown>;
// eslint-disable-next-line no-control-regex
const plainText = (v: unknown, max: number) => typeof v === 'string' && v.length <= max && !/[\u0000-\u001f\u007f]/.test(v);

/** Why the bucket row cannot be trusted, or undefined when it has exactly the shape Skydeck writes. */
export function bucketRowProblem(row: Obj): string | undefined {
  if (!STORES.includes(row.store as StoreKind)) return `store ${printable(row.store)} is not one Skydeck knows`;
  const store = row.store as StoreKind;
  if (typeof row.name !== 'string') return 'name is not text';
  const nameProblem = bucketNameProblem(store, row.name);
  if (nameProblem) return `name ${printable(row.name)} ${nameProblem}`;
  if (typeof row.uid !== 'string' || !UID.test(row.uid)) return `uid ${printable(row.uid)} is not a Skydeck bucket uid`;
  if (typeof row.location !== 'string' || row.location.length > 1024) return 'location is not JSON text';
  let loc: unknown;
  try {
    loc = JSON.parse(row.location);
  } catch {
    return 'location is not valid JSON';
  }
  if (typeof loc !== 'object' || loc === null || Array.isArray(loc)) return 'location is not an object';
  for (const [k, v] of Object.entries(loc)) {
    if (k !== 'region' && k !== 'account') return `location has the unknown field ${printable(k)}`;
    if (typeof v !== 'string' || !PLACE.test(v)) return `location.${k} ${printable(v)} is not valid`;
  }
  if (row.persistent !== 0 && row.persistent !== 1) return `persistent ${printable(row.persistent)} is not 0 or 1`;
  if (row.owner_cluster_uid !== null && !(typeof row.owner_cluster_uid === 'string' && UID.test(row.owner_cluster_uid))) {
    return `owner_cluster_uid ${printable(row.owner_cluster_uid)} is not a cluster uid`;
  }
  if (row.persistent === 0 && row.owner_cluster_uid === null) return 'a non-persistent bucket names no owner cluster';
  if (!STATUSES.includes(row.status as string)) return `status ${printable(row.status)} is not valid`;
  if (typeof row.created_at !== 'number' || !Number.isInteger(row.created_at) || row.created_at < 0 || row.created_at > MAX_TIME) {
    return `created_at ${printable(row.created_at)} is out of range`;
  }
  if (row.created_by_user !== null && !plainText(row.created_by_user, 64)) return 'created_by_user is not a user name';
  if (row.created_by_machine !== null && !(typeof row.created_by_machine === 'string' && MACHINE.test(row.created_by_machine))) {
    return 'created_by_machine is not a Skydeck machine id';
  }
  if (row.last_error !== null && !(typeof row.last_error === 'string' && row.last_error.length <= 64 * 1024)) return 'last_error is not text';
  // Read with ownerState, which counts anything malformed as no user: only its size matters here.
  if (row.users !== null && row.users !== undefined && !(typeof row.users === 'string' && row.users.length <= 64 * 1024)) return 'users is not text';
  return undefined;
}
