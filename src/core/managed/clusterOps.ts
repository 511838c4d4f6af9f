// What the controller does to a managed job's cluster, all through ops (so the provision loop
// and its leak invariants apply): launch (or adopt) it, look at it, tear it down with proof.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { getCluster, type ClusterRecord } from '../state';
import type { ClusterInfo, Placement, ProviderRegistry, RunRequest } from '../clouds/provider';
import { refreshOne, teardownUnderWay, type Bootstrap } from '../provision';
import { agentBootstrap, down, launch, type OpsContext } from '../ops';
import type { LaunchSlot } from './slots';
import { envFor, isProviderCluster } from '../ops/providerEnv';
import { cloudHealth, endedOnItsOwn, type CloudHealth, type EndObservation } from './recovery';
import type { CloudPoll } from './cloudPoll';
import type { ManagedJob } from './jobRows';

const AGENT_TIMEOUT_MS = 20_000;

export interface Launched {
  uid: string;
  agentJobId: number;
  region: string | null;
  adopted: boolean;
}

/**
 * Brings up `job.clusterName` and submits the current task, or adopts what a killed
 * controller already did: a row of that name is this job's (the name is unique per launch),
 * so an UP one whose agent already holds a job is adopted as it is, and an INIT one is
 * finished by launch (resume), never launched a second time.
 */
export async function launchOrAdopt(
  ctx: OpsContext, job: ManagedJob, opts: { signal: AbortSignal; order?(p: Placement[]): Placement[]; slot: LaunchSlot },
): Promise<Launched> {
  const name = job.clusterName!;
  let row = await ctx.store.read((db) => getCluster(db, name));
  if (row && teardownUnderWay(row)) {
    await down(ctx, name);
    row = undefined;
  }
  if (row?.status === 'UP') {
    const jobs = await withTimeout(ctx.connections.client(row).queueSnapshot(), AGENT_TIMEOUT_MS, name).catch(() => undefined);
    const last = jobs?.at(-1);
    if (last) return { uid: row.uid, agentJobId: last.job_id, region: row.region, adopted: true };
  }
  // The slot is taken only for the head's setup (bootstrap, then upload and submit, until the
  // launch ends): recording the intent and creating the instances never wait for one.
  const base = ctx.bootstrap ?? agentBootstrap(ctx);
  // The gate keeps the launch's autostop hold (launchProvider.ts asks for it with withHold).
  const gate = (b: Bootstrap): Bootstrap => Object.assign(async (row: ClusterRecord, info: ClusterInfo, signal?: AbortSignal) => (await opts.slot.take(), b(row, info, signal)), {
    ...(b.withHold ? { withHold: (s: number) => gate(b.withHold!(s)) } : {}),
  });
  const gated: OpsContext = {
    ...ctx, bootstrap: gate(base),
    ...(ctx.providers ? { providers: reportingCreate(ctx.providers, () => opts.slot.reachedCloud()) } : {}),
  };
  const r = await launch(gated, {
    taskFile: writeTaskFile(ctx, job), cluster: name, envs: job.envs, detach: true, provisionSignal: opts.signal, placementOrder: opts.order,
  });
  const now = await ctx.store.read((db) => getCluster(db, name));
  if (!now || r.jobId === undefined) throw new Error(`${name}: launched, but its row or job id is missing`);
  return { uid: now.uid, agentJobId: r.jobId, region: now.region, adopted: false };
}

/** The registry with each provider's create call reported first (setups wait for pending creates: slots.ts). */
function reportingCreate(reg: ProviderRegistry, onCreate: () => void): ProviderRegistry {
  return {
    clouds: reg.clouds,
    get: (cloud) => {
      const p = reg.get(cloud);
      if (!p) return p;
      return new Proxy(p, {
        get(t, k) {
          if (k === 'runInstances') return (req: RunRequest) => (onCreate(), t.runInstances(req));
          const v: unknown = Reflect.get(t, k, t);
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
        },
      });
    },
  };
}

/** The current task's YAML as a file for launch, under the controller's workspace. */
function writeTaskFile(ctx: OpsContext, job: ManagedJob): string {
  const dir = path.join(ctx.workspaceRoot, '.skydeck', 'managed', String(job.id));
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `task-${job.taskIndex}.yaml`);
  fs.writeFileSync(file, job.tasks[job.taskIndex], { mode: 0o600 });
  return file;
}

/**
 * The agent's view of the job and the cloud's of the cluster, each "unknown" when not answered.
 * The cloud's view comes from the shared listing (cloudPoll.ts) while it shows the cluster
 * healthy and the agent its job going; any other case is decided on a fresh look at the uid.
 */
export async function observe(ctx: OpsContext, job: ManagedJob, poll: CloudPoll): Promise<EndObservation> {
  const row = await ctx.store.read((db) => getCluster(db, job.clusterName!));
  if (!row || row.uid !== job.clusterUid) return { cloud: { kind: 'not-running', why: `cluster ${job.clusterName} was removed (proven gone)` } };
  if (!isProviderCluster(row)) {
    const agent = await agentView(ctx, row, job.agentJobId!);
    return { agent, cloud: agent ? { kind: 'healthy' } : { kind: 'unknown', why: 'the head did not answer' } };
  }
  const [agent, listed] = await Promise.all([agentView(ctx, row, job.agentJobId!), poll.instancesOf(row)]);
  if (agent && !endedOnItsOwn(agent.status) && listed && cloudHealth(listed, row.num_nodes).kind === 'healthy') return { agent, cloud: { kind: 'healthy' } };
  return { agent, cloud: await cloudView(ctx, row) };
}

async function agentView(ctx: OpsContext, row: ClusterRecord, id: number): Promise<EndObservation['agent']> {
  try {
    const jobs = await withTimeout(ctx.connections.client(row).queue(), AGENT_TIMEOUT_MS, row.name);
    const j = jobs.find((x) => x.job_id === id);
    return j ? { status: j.status, exitCode: j.exit_code } : undefined;
  } catch {
    return undefined;
  }
}

async function cloudView(ctx: OpsContext, row: ClusterRecord): Promise<CloudHealth> {
  if (!isProviderCluster(row)) return { kind: 'healthy' };
  try {
    const r = await refreshOne(envFor(ctx, row.provider), row, { waitYoung: false });
    if (r.action === 'removed') return { kind: 'not-running', why: r.message ?? 'removed after proof' };
    if (r.action === 'error' || !r.instances) return { kind: 'unknown', why: r.message ?? 'no answer' };
    return cloudHealth(r.instances, row.num_nodes);
  } catch (e) {
    return { kind: 'unknown', why: (e as Error).message };
  }
}

/** Best effort: the agent job of a cluster about to go (a vanished head simply does not answer). */
export async function cancelAgentJob(ctx: OpsContext, job: ManagedJob): Promise<void> {
  if (!job.clusterName || job.agentJobId === null) return;
  const row = await ctx.store.read((db) => getCluster(db, job.clusterName!));
  if (!row || (job.clusterUid && row.uid !== job.clusterUid) || row.status !== 'UP') return;
  await withTimeout(ctx.connections.client(row).cancel({ jobIds: [job.agentJobId] }, 2), 5_000, row.name).catch(() => undefined);
}

/**
 * Tears the job's cluster down with proof (ops down). With a recorded uid only that uid; with
 * only an intended name, whatever row holds the name (nobody else launches it). Throws while
 * the cloud has not confirmed: the caller keeps the cluster recorded and tries again.
 */
export async function tearDown(ctx: OpsContext, job: ManagedJob): Promise<void> {
  if (!job.clusterName) return;
  const row = await ctx.store.read((db) => getCluster(db, job.clusterName!));
  if (!row || (job.clusterUid && row.uid !== job.clusterUid)) return;
  await down(ctx, row.name);
  await ctx.connections.forget(row.name).catch(() => undefined);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms))),
  ]);
}
