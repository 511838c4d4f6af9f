// How a managed job comes back: where its next cluster is tried first (job_recovery.strategy),
// and whether an ended run was the cloud's doing (preemption: recover), the user's (restart
// only within max_restarts_on_errors or for a recover_on_exit_codes code) or a success.
import type { InstanceInfo, Placement } from '../clouds/provider';
import type { JobStatus } from '../jobs/protocol';
import type { JobRecovery } from '../task/types';

export type RecoveryStrategy = 'FAILOVER' | 'EAGER_NEXT_REGION';

export interface RecoveryPolicy {
  strategy: RecoveryStrategy;
  maxRestartsOnErrors: number;
  recoverOnExitCodes: number[];
}

/** The task's `job_recovery` (autostop.ts parseJobRecovery) with SkyPilot's defaults. */
export function recoveryPolicy(r: JobRecovery | undefined): RecoveryPolicy {
  const s = (r?.strategy ?? 'FAILOVER').toUpperCase();
  return {
    strategy: s === 'EAGER_NEXT_REGION' ? 'EAGER_NEXT_REGION' : 'FAILOVER',
    maxRestartsOnErrors: Math.max(0, Math.floor(r?.maxRestartsOnErrors ?? 0)),
    recoverOnExitCodes: r?.recoverOnExitCodes ?? [],
  };
}

/**
 * The placements of a relaunch, in order. FAILOVER: the region the job was in first (capacity
 * there is the likeliest to be back), then the task's other candidates; EAGER_NEXT_REGION: the
 * other regions first and the one that preempted it last. Order within each part is kept.
 */
export function placementOrder(placements: Placement[], strategy: RecoveryStrategy, lastRegion: string | null | undefined): Placement[] {
  if (!lastRegion) return placements;
  const same = placements.filter((p) => p.region === lastRegion);
  const other = placements.filter((p) => p.region !== lastRegion);
  return strategy === 'FAILOVER' ? [...same, ...other] : [...other, ...same];
}

/** The cloud's view of the cluster: every node running, or not (preempted), or not known. */
export type CloudHealth = { kind: 'healthy' } | { kind: 'not-running'; why: string } | { kind: 'unknown'; why: string };

/** From a query of the cluster's uid: fewer than `numNodes` running means the cloud took them. */
export function cloudHealth(instances: InstanceInfo[], numNodes: number): CloudHealth {
  const unknown = instances.find((i) => i.status === 'unknown');
  if (unknown) return { kind: 'unknown', why: `instance ${unknown.id} is in a status the cloud does not name` };
  const running = instances.filter((i) => i.status === 'running').length;
  if (running >= numNodes) return { kind: 'healthy' };
  const seen = instances.map((i) => `${i.id} ${i.status}`).join(', ') || 'no instance listed';
  return { kind: 'not-running', why: `${running} of ${numNodes} node(s) running (${seen})` };
}

export interface EndObservation {
  /** The agent's job status; undefined when the head did not answer. */
  agent?: { status: JobStatus; exitCode: number | null };
  cloud: CloudHealth;
}

export type EndVerdict =
  | { kind: 'running' }
  | { kind: 'succeeded' }
  | { kind: 'preempted'; why: string }
  | { kind: 'user-failed'; setup: boolean; restart: boolean; countsAsRestart: boolean; why: string }
  /** Not decidable yet (the cloud or the head did not answer): look again. */
  | { kind: 'unknown'; why: string };

const FAILED_BY_USER: ReadonlySet<JobStatus> = new Set<JobStatus>(['FAILED', 'FAILED_SETUP', 'FAILED_DRIVER', 'CANCELLED']);

/** The agent says the job failed or was cancelled: whose doing it was needs the cloud's fresh word. */
export function endedOnItsOwn(s: JobStatus): boolean {
  return FAILED_BY_USER.has(s);
}

/**
 * A success the agent recorded stands even if the cloud took the cluster afterwards. Otherwise
 * a cluster the cloud no longer runs was preempted, whatever its agent last said; a failure
 * counts as the user's only while the cloud confirms the cluster healthy.
 */
export function classifyEnd(obs: EndObservation, policy: RecoveryPolicy, restartsUsed: number): EndVerdict {
  const a = obs.agent;
  if (a?.status === 'SUCCEEDED') return { kind: 'succeeded' };
  if (obs.cloud.kind === 'not-running') return { kind: 'preempted', why: obs.cloud.why };
  if (!a) return { kind: 'unknown', why: obs.cloud.kind === 'unknown' ? obs.cloud.why : 'the head did not answer' };
  if (!FAILED_BY_USER.has(a.status)) return { kind: 'running' };
  if (obs.cloud.kind === 'unknown') return { kind: 'unknown', why: `job ${a.status}, but the cloud could not confirm the cluster healthy: ${obs.cloud.why}` };
  const setup = a.status === 'FAILED_SETUP';
  const byCode = a.exitCode !== null && policy.recoverOnExitCodes.includes(a.exitCode);
  const withinMax = a.status !== 'CANCELLED' && restartsUsed < policy.maxRestartsOnErrors;
  const why = `the job ended ${a.status}${a.exitCode !== null ? ` (exit code ${a.exitCode})` : ''} on a healthy cluster`;
  return { kind: 'user-failed', setup, restart: byCode || withinMax, countsAsRestart: !byCode, why };
}
