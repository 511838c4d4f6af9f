import type { ClusterRecord } from '../state';
import type { ClusterInfo, Placement } from '../clouds/provider';
import { tagsFor } from '../clouds/provider';
import type { PortRange, Task } from '../task';
import type { ReachableHandle } from '../ops/clusterHandle';
import type { ProvisionEnv } from './env';
import { call, callWithRetry, type CallFailureKind } from './call';
import { providerHandle, refOf } from './handle';
import { saveRow } from './rows';
import { describePlacement } from './candidates';

/** Connects the head's agent (ops) or anything a test wants; returns what to keep in the handle. */
export type Bootstrap = ((row: ClusterRecord, info: ClusterInfo, signal?: AbortSignal) => Promise<Partial<ReachableHandle>>) & {
  /** The same bootstrap readying the task's container on every node first (`image_id: docker:…`). */
  withContainer?: (c: ContainerRequest) => Bootstrap;
  /** The same bootstrap for a launch: its autostop is held off this long, until the job is in (ops/agentAutostop.ts). */
  withHold?: (seconds: number) => Bootstrap;
};

/** What a container cluster's bootstrap needs of the task (ops/containerLaunch.ts). */
export interface ContainerRequest {
  image: string;
  task: Task;
  envs: Record<string, string>;
}

/** Why a try failed: a provider call's kind, the head's setup, or the user's cancel. */
export type FailureKind = CallFailureKind | 'bootstrap' | 'cancelled';

export type StepFailure = { ok: false; kind: FailureKind; message: string; hint?: string };
export type AttemptOutcome = { ok: true; row: ClusterRecord } | StepFailure;

export interface AttemptInput {
  row: ClusterRecord;
  workspaceId: string;
  placement: Placement;
  numNodes: number;
  ports: PortRange[];
  bootstrap: Bootstrap;
  signal?: AbortSignal;
  /** Resume: the row's stopped instances are started, nothing new is created. */
  resume: boolean;
}

const cancelled: StepFailure = { ok: false, kind: 'cancelled', message: 'cancelled by the user' };
const lost: StepFailure = { ok: false, kind: 'config', message: 'the cluster row was removed or taken by another cluster meanwhile' };

/**
 * One try at one placement: intent, create (or start), wait, cluster info, ports, bootstrap,
 * UP. Checks the signal between steps (the safe points); never throws for a cloud error.
 * On failure the caller cleans up (terminate with proof) — this function only reports.
 */
export async function runAttempt(env: ProvisionEnv, input: AttemptInput): Promise<AttemptOutcome> {
  const retry = { clock: env.clock, retries: env.timing.transientRetries, backoffMs: env.timing.backoffMs, signal: input.signal };
  const p = input.placement;
  const h0 = providerHandle(input.row);
  // Leak invariant 1: the intent (uid, placement, run in flight) is saved before the call.
  let row = await saveRow(env, input.row, {
    region: p.region ?? null, zone: p.zone ?? null, last_error: null,
    // A fresh try forgets the previous try's ids: those were proven terminated before we got here.
    handlePatch: { placement: p, runInFlight: true, lastRunAt: env.clock.now(), attempt: h0.attempt + 1, ...(input.resume ? {} : { instanceIds: [], seenIds: [] }) },
  }, { kind: 'attempt', message: `${input.resume ? 'starting' : 'creating'} on ${describePlacement(p)}`, data: p }, !input.resume);
  if (!row) return lost;
  if (input.signal?.aborted) return cancelled;
  env.progress(`${input.resume ? 'Starting' : 'Creating'} ${input.numNodes} instance(s) of ${row.name} on ${describePlacement(p)}`);
  const ref = refOf(row);
  const run = await callWithRetry(() => env.provider.runInstances({
    ...ref, clusterName: row!.name, workspaceId: input.workspaceId, numNodes: input.numNodes, placement: p,
    tags: tagsFor({ clusterName: row!.name, uid: row!.uid, workspaceId: input.workspaceId }),
    shutdownTerminates: row!.autostop_minutes !== null && row!.autostop_down === 1,
    ...(row!.autostop_minutes !== null ? { autostop: { down: row!.autostop_down === 1 } } : {}),
    ...(input.ports.length ? { ports: input.ports } : {}),
  }), retry);
  if (!run.ok) {
    // A typed refusal promises nothing was created (provider.ts), so no grace wait is owed;
    // otherwise the outcome stays unknown, with the grace window counted from now.
    const refused = run.kind !== 'transient' && run.kind !== 'unknown';
    await saveRow(env, row, { handlePatch: { runAnsweredAt: env.clock.now(), ...(refused ? { runInFlight: false } : {}) } }, undefined, !input.resume);
    return run;
  }
  const ids = [...new Set([...(input.resume ? h0.instanceIds : []), ...run.value.created, ...run.value.resumed])];
  const restore = !input.resume;
  row = await saveRow(env, row, { handlePatch: { instanceIds: ids, runInFlight: false, runAnsweredAt: env.clock.now() } }, undefined, restore);
  if (!row) return lost;
  if (input.signal?.aborted) return cancelled;

  env.progress(`Waiting for ${row.name}'s instances to run`);
  const waited = await waitRunning(env, row, input.numNodes, input.signal);
  if (!waited.ok) return waited;
  const info = await callWithRetry(() => env.provider.clusterInfo(ref), retry);
  if (!info.ok) return info;
  if (input.ports.length) {
    const opened = await callWithRetry(() => env.provider.openPorts(ref, input.ports), retry);
    if (!opened.ok) return opened;
  }
  if (input.signal?.aborted) return cancelled;
  env.progress(`Setting up ${row.name} (head ${info.value.head.address})`);
  const boot = await call(() => input.bootstrap(row!, info.value, input.signal));
  if (!boot.ok) return { ok: false, kind: 'bootstrap', message: boot.message };
  if (input.signal?.aborted) return cancelled;
  row = await saveRow(env, row, {
    status: 'UP', flags: null, last_error: null, head_address: info.value.head.address,
    ssh_user: info.value.sshUser, ssh_port: info.value.sshPort ?? 22, ssh_key_path: info.value.sshKeyPath ?? null,
    handlePatch: { ...boot.value, headId: info.value.head.id, launchOwner: undefined, seenIds: providerHandle(row).instanceIds },
  }, { kind: 'up', message: `up on ${describePlacement(p)}, head ${info.value.head.address}` });
  return row ? { ok: true, row } : lost;
}

/** Polls until `numNodes` of the uid's instances run; a known one going away fails the try. */
async function waitRunning(env: ProvisionEnv, row: ClusterRecord, numNodes: number, signal?: AbortSignal): Promise<{ ok: true } | StepFailure> {
  const start = env.clock.now();
  const known = new Set(providerHandle(row).instanceIds);
  for (;;) {
    if (signal?.aborted) return cancelled;
    const q = await callWithRetry(() => env.provider.queryInstances(refOf(row)), {
      clock: env.clock, retries: env.timing.transientRetries, backoffMs: env.timing.backoffMs, signal,
    });
    if (!q.ok) return q;
    const gone = q.value.filter((i) => known.has(i.id) && (i.status === 'terminating' || i.status === 'terminated'));
    if (gone.length) return { ok: false, kind: 'capacity', message: `instance ${gone[0].id} went ${gone[0].status} while starting (preempted?)` };
    const running = q.value.filter((i) => i.status === 'running');
    const knownRunning = [...known].every((id) => running.some((i) => i.id === id));
    if (running.length >= numNodes && knownRunning) return { ok: true };
    if (env.clock.now() - start > env.timing.runningTimeoutMs) {
      return { ok: false, kind: 'transient', message: `instances not running after ${Math.round(env.timing.runningTimeoutMs / 1000)} s` };
    }
    await env.clock.sleep(Math.min(env.provider.runningPollMs ?? Infinity, env.timing.pollMs), signal);
  }
}
