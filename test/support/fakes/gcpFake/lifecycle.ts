// The rest of GCE's instance status machine: every Instance.status value of Compute v1
// (discovery doc `Instance.status` enum; compute.proto `Instance.Status`), instances.resume, and
// the transitions GCE makes on its own (guest shutdown, host repair, suspension, Flex-start
// waiting), as hooks a test calls on a model. Each step takes stepMs, as in model.ts.
import { invalid, poolExhausted } from './bodies';
import type { FakeInstance, FakeOperation, GceModel } from './model';

export const GCE_STATUSES = [
  'DEPROVISIONING', 'PENDING', 'PENDING_STOP', 'PROVISIONING', 'REPAIRING', 'RUNNING', 'STAGING', 'STOPPED', 'STOPPING',
  'SUSPENDED', 'SUSPENDING', 'TERMINATED',
] as const;
export type GceStatus = (typeof GCE_STATUSES)[number];

/** Statuses of a VM that is down: start (or resume) brings it back, stop does nothing. */
export const STOPPED_STATES: readonly string[] = ['TERMINATED', 'STOPPED', 'SUSPENDED'];
/** Statuses of a VM already on its way down: a stop is accepted and changes nothing. */
const HALTING: readonly string[] = ['PENDING_STOP', 'STOPPING', 'DEPROVISIONING', 'SUSPENDING'];

interface Path {
  via: GceStatus[];
  to?: 'TERMINATED' | 'STOPPED';
}
const stopPaths = new WeakMap<GceModel, Path>();
const deletePaths = new WeakMap<GceModel, GceStatus[]>();

/** The statuses instances.stop walks through and ends in (default: STOPPING, then TERMINATED). */
export function setStopPath(m: GceModel, via: GceStatus[], to: 'TERMINATED' | 'STOPPED' = 'TERMINATED'): void {
  stopPaths.set(m, { via, to });
}

/** The statuses instances.delete shows before the VM vanishes (default: STOPPING). */
export function setDeletePath(m: GceModel, via: GceStatus[]): void {
  deletePaths.set(m, via);
}

const walked = new WeakMap<FakeInstance, string[]>();

/** Every status a walk has put the instance in, in order (a test's record that does not depend on polling). */
export function walkedStatuses(i: FakeInstance): string[] {
  return walked.get(i) ?? [];
}

/** Shows via[0] at once, each next status two steps later, and calls `end` a step after the last. */
function walk(m: GceModel, i: FakeInstance, via: string[], end: () => void): void {
  if (!walked.has(i)) walked.set(i, []);
  const set = (s: string) => {
    i.status = s as FakeInstance['status'];
    walked.get(i)!.push(s);
  };
  via.forEach((s, n) => (n ? m.later(2 * n, () => set(s)) : set(s)));
  m.later(2 * via.length + 1, () => {
    end();
    walked.get(i)!.push(i.status);
  });
}

export function stopVia(m: GceModel, i: FakeInstance, op: FakeOperation): void {
  if (STOPPED_STATES.includes(i.status) && i.status !== 'SUSPENDED') return m.later(1, () => m.finish(op));
  if (HALTING.includes(i.status)) return m.later(1, () => m.finish(op));
  const p = stopPaths.get(m) ?? { via: ['STOPPING'] };
  walk(m, i, p.via, () => {
    i.status = p.to ?? 'TERMINATED';
    m.finish(op);
  });
}

export function deleteVia(m: GceModel, i: FakeInstance, op: FakeOperation): void {
  walk(m, i, deletePaths.get(m) ?? ['STOPPING'], () => {
    m.instances.delete(`${i.zone}/${i.name}`);
    m.finish(op);
  });
}

/** instances.start wants a stopped VM; a suspended one must be resumed (checked before the operation). */
export function checkStart(i: FakeInstance): void {
  if (i.status === 'SUSPENDED') throw invalid(`The instance '${i.name}' is suspended. Use instances.resume to resume it.`);
}

/** instances.resume (POST …/instances/{instance}/resume): only a SUSPENDED VM; a full zone fails the operation. */
export function checkResume(i: FakeInstance): void {
  if (i.status !== 'SUSPENDED') throw invalid(`The instance '${i.name}' is not suspended (status ${i.status}).`);
}

export function runResume(m: GceModel, i: FakeInstance, op: FakeOperation): void {
  bootVia(m, i, op);
}

/** start and resume bring a VM up the same way: PROVISIONING, STAGING, RUNNING (or a full zone). */
export function bootVia(m: GceModel, i: FakeInstance, op: FakeOperation): void {
  if (m.exhausted.has(i.zone)) return m.later(2, () => m.finish(op, poolExhausted(m.project, i.zone, i.machineType)));
  i.status = 'PROVISIONING';
  m.later(1, () => (i.status = 'STAGING'));
  m.later(2, () => m.finish(op));
  m.later(3, () => {
    if (i.status === 'STAGING') i.status = 'RUNNING';
  });
}

// Transitions GCE makes by itself. They act on the instance as the API shows it from then on.

/** Holds the VM in `status` until something else moves it — any enum value, or one the API may add later. */
export function putInStatus(m: GceModel, zone: string, name: string, status: GceStatus | string): void {
  m.instance(zone, name).status = status as FakeInstance['status'];
}

/** The guest shut itself down (or the host failed): PENDING_STOP, STOPPING, optionally DEPROVISIONING, then `to`. */
export function cloudStop(m: GceModel, zone: string, name: string, to: 'TERMINATED' | 'STOPPED', deprovision = false): void {
  const i = m.instance(zone, name);
  walk(m, i, ['PENDING_STOP', 'STOPPING', ...(deprovision ? ['DEPROVISIONING'] : [])], () => (i.status = to));
}

/** GCE suspended the VM (memory kept): SUSPENDING, then SUSPENDED. */
export function cloudSuspend(m: GceModel, zone: string, name: string): void {
  const i = m.instance(zone, name);
  walk(m, i, ['SUSPENDING'], () => (i.status = 'SUSPENDED'));
}

/** A host repair: REPAIRING for `steps` steps, then RUNNING again. */
export function cloudRepair(m: GceModel, zone: string, name: string, steps: number): void {
  const i = m.instance(zone, name);
  i.status = 'REPAIRING';
  m.later(steps, () => {
    if (i.status === 'REPAIRING') i.status = 'RUNNING';
  });
}
