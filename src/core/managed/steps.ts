// One managed job's state machine. Each step records its status (and the cluster it is about
// to touch) BEFORE acting, so a controller killed anywhere resumes from the store: a recorded
// uid is a cluster to tear down, a name without uid a launch to adopt or make.
import { parseTaskText } from '../task';
import type { Placement } from '../clouds/provider';
import { cancelAgentJob, launchOrAdopt, observe, tearDown } from './clusterOps';
import { keepLog } from './keptLogs';
import { dropJobUploads } from './carrySweep';
import { classifyEnd, placementOrder, recoveryPolicy, type RecoveryPolicy } from './recovery';
import { isTerminal, type ManagedStatus } from './states';
import type { JobPatch, ManagedJob } from './jobRows';
import type { ControllerCore } from './core';

/** Runs job `id` until it ends and its cluster is gone, or the controller stops. */
export async function driveJob(c: ControllerCore, id: number): Promise<void> {
  for (let errors = 0; !c.stopped; ) {
    const job = await c.get(id);
    if (!job) return;
    try {
      if (await step(c, job)) return;
      errors = 0;
    } catch (e) {
      if (c.stopped) return;
      errors++;
      const msg = (e as Error).message;
      c.log(`managed job ${id} (${job.status}): ${msg}`);
      if (errors >= c.opts.maxErrors && !isTerminal(job.status) && job.status !== 'CANCELLING') {
        await c.move(id, 'FAILED_CONTROLLER', `gave up after ${errors} errors in a row: ${msg}`, { lastError: msg, endedAt: c.now() });
        errors = 0;
      } else await c.nap(id, c.opts.pollMs * Math.min(2 ** errors, 30));
    }
  }
}

/** One step; true when the job is finished with (ended, no cluster left). */
async function step(c: ControllerCore, job: ManagedJob): Promise<boolean> {
  if (job.cancelRequested && !isTerminal(job.status) && job.status !== 'CANCELLING') {
    await c.move(job.id, job.clusterName ? 'CANCELLING' : 'CANCELLED', 'cancel requested', job.clusterName ? {} : { endedAt: c.now() });
    return false;
  }
  switch (job.status) {
    case 'PENDING': {
      const m = startMove(job, c.now());
      await c.move(job.id, 'STARTING', m.reason, m.patch);
      return false;
    }
    case 'STARTING':
    case 'RECOVERING':
      await ensureCluster(c, job);
      return false;
    case 'RUNNING':
      await watch(c, job);
      return false;
    case 'CANCELLING':
      await cancelAgentJob(c.ctx, job);
      await keepLog(c.ctx, job);
      await tearDown(c.ctx, job);
      await c.move(job.id, 'CANCELLED', 'cancelled; its cluster is torn down with proof', { clusterName: null, clusterUid: null, endedAt: c.now() });
      return false;
    default:
      // Ended: the cluster goes (with proof) before the job forgets it; then the job's copies
      // of its files (a controller killed in between leaves them to sweepUploads).
      if (job.clusterName) {
        await cancelAgentJob(c.ctx, job);
        await keepLog(c.ctx, job);
        await tearDown(c.ctx, job);
        await c.patch(job.id, { clusterName: null, clusterUid: null });
      }
      dropJobUploads(job.uploads, c.ctx.workspaceRoot);
      return true;
  }
}

/** PENDING → STARTING: the job names its first cluster (the controller's submit records it at once). */
export function startMove(job: ManagedJob, now: number): { reason: string; patch: JobPatch } {
  return { reason: `launching task ${job.taskIndex + 1} of ${job.tasks.length}`, patch: { ...nextCluster(job), startedAt: now } };
}

/** The cluster for the next launch: a fresh name per launch, never a reused one. */
function nextCluster(job: ManagedJob): JobPatch {
  const k = job.launches + 1;
  return { clusterName: `${job.name.slice(0, 40)}-mj${job.id}-${k}`, clusterUid: null, agentJobId: null, launches: k };
}

/** STARTING/RECOVERING: the old cluster (a recorded uid) goes first, then launch or adopt. */
async function ensureCluster(c: ControllerCore, job: ManagedJob): Promise<void> {
  if (job.clusterUid) {
    await cancelAgentJob(c.ctx, job);
    // Its output first: `jobs logs` of the job reads it once the cluster is gone (briefly: a
    // preempted head does not answer, and the replacement should not wait on it).
    await keepLog(c.ctx, job, { timeoutMs: 5_000 });
    await tearDown(c.ctx, job);
    await c.patch(job.id, nextCluster(job));
    return;
  }
  const policy = policyOf(job);
  const order = job.status === 'RECOVERING' ? (p: Placement[]) => placementOrder(p, policy.strategy, job.region) : undefined;
  const signal = c.signalFor(job.id);
  let got;
  const slot = c.launchSlot(signal);
  try {
    got = await launchOrAdopt(c.ctx, job, { signal, order, slot });
  } catch (e) {
    if (c.stopped || signal.aborted) return;
    const tries = c.launchFailed(job.id);
    if (tries < c.opts.launchRetries) throw e;
    await c.move(job.id, 'FAILED_NO_RESOURCE', `no placement could be launched: ${(e as Error).message}`, { lastError: (e as Error).message, endedAt: c.now() });
    return;
  } finally {
    slot.done();
  }
  if (c.stopped) return;
  await c.move(job.id, 'RUNNING', `${got.adopted ? 'adopted' : 'launched'} ${job.clusterName}${got.region ? ` in ${got.region}` : ''}, agent job ${got.agentJobId}`, {
    clusterUid: got.uid, agentJobId: got.agentJobId, region: got.region,
  });
}

/** RUNNING: looks until the run ends, then records what comes next. */
async function watch(c: ControllerCore, job: ManagedJob): Promise<void> {
  const policy = policyOf(job);
  for (;;) {
    await c.nap(job.id, c.opts.pollMs);
    const cur = await c.get(job.id);
    if (c.stopped || !cur || cur.cancelRequested || cur.status !== 'RUNNING') return;
    const v = classifyEnd(await observe(c.ctx, cur, c.cloudPoll), policy, cur.restartsOnErrors);
    if (v.kind === 'running' || v.kind === 'unknown') continue;
    if (v.kind === 'succeeded') {
      const next = cur.taskIndex + 1;
      if (next < cur.tasks.length) await c.move(cur.id, 'STARTING', `task ${next} of ${cur.tasks.length} succeeded; the next starts on a fresh cluster`, { taskIndex: next });
      else await c.move(cur.id, 'SUCCEEDED', 'every task succeeded', { endedAt: c.now() });
      return;
    }
    if (v.kind === 'preempted') {
      await c.move(cur.id, 'RECOVERING', `preempted: ${v.why}`, { recoveryCount: cur.recoveryCount + 1, lastError: v.why });
      return;
    }
    if (v.restart) {
      const used = cur.restartsOnErrors + (v.countsAsRestart ? 1 : 0);
      await c.move(cur.id, 'RECOVERING', `${v.why}; restart ${used} of ${policy.maxRestartsOnErrors}`, { restartsOnErrors: used, lastError: v.why });
      return;
    }
    const to: ManagedStatus = v.setup ? 'FAILED_SETUP' : 'FAILED';
    await c.move(cur.id, to, v.why, { lastError: v.why, endedAt: c.now() });
    return;
  }
}

const policies = new Map<string, RecoveryPolicy>();

/**
 * The current task's job_recovery (the parse already succeeded at submit). Remembered per task
 * text and envs: hundreds of jobs of one YAML parse it once, not at every launch and watch.
 */
function policyOf(job: ManagedJob): RecoveryPolicy {
  const key = JSON.stringify([job.tasks[job.taskIndex], job.envs]);
  let p = policies.get(key);
  if (!p) {
    const parsed = parseTaskText(job.tasks[job.taskIndex], 'task.yaml', { env: job.envs });
    p = recoveryPolicy(parsed.tasks[0]?.resources.jobRecovery);
    if (policies.size >= 256) policies.clear();
    policies.set(key, p);
  }
  return p;
}
