import { getCluster, notOursReason } from '../state';
import type { AgentClient } from '../jobs';
import * as os from 'node:os';
import { localMountNote, type Task } from '../task';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { checkClusterName, generateClusterName } from './clusterNames';
import { loadTaskForRun, type TaskInput } from './loadTask';
import { checkSyncSources } from './syncFiles';
import { syncAll } from './syncHead';
import { choosePool, REACHABLE_CLOUDS, updateCluster, writeIntent } from './provisionReachable';
import { readHandle } from './clusterHandle';
import { localBaseProblem } from './localBase';
import { localBaseDir } from './context';
import { bringUpWorkers, syncWorkers } from './multiNode';
import { autostopOf } from './autostopOf';
import { liftLaunchHold } from './agentAutostop';
import { jobSpecOf } from './jobSpec';
import { followJob, FollowOptions, JobOutcome, submitJob } from './runJob';
import type { AttemptReport } from '../provision';
import type { Placement } from '../clouds/provider';
import type { ClusterRecord } from '../state';
import { teardownUnderWay } from '../provision';
import { cloudFor, pricedPlan } from './launchPlan';
import type { LaunchPlan as PricedPlan } from '../cost';
import { isProviderCluster, providerOf } from './providerEnv';
import { downProvider } from './downProvider';
import { launchOnProvider } from './launchProvider';
import { forCluster, planBuckets } from './bucketPlan';
import { ensureNamedBuckets } from './namedBuckets';
import { grantPlannedBuckets } from './bucketGrant';
import { lookUpS3Regions } from './s3Regions';
import { setupPlan } from './setupPlan';
import { checkReuse, keepRegistryPasswordSecret, readyContainer, taskContainerImage } from './containerLaunch';
import { INSTALLING_CLOUDS } from './containerNodes';
import { retryUntilUp } from './retryUntilUp';

export interface LaunchRequest extends FollowOptions, TaskInput {
  cluster?: string;
  /** --cloud: overrides the task's resources.cloud. */
  cloud?: string;
  /** A region for candidates that name none (the editor's pick for a task that names no cloud). */
  region?: string;
  /** The cloud of a new cluster whose task names none (the editor's skydeck.defaultCloud); see cloudFor. */
  defaultCloud?: string;
  idleMinutes?: number;
  down?: boolean;
  /** -d: submit and return without following the output. */
  detach?: boolean;
  /** --no-setup: run only `run` (the task's setup is skipped, as `sky launch --no-setup`). */
  noSetup?: boolean;
  /** --retry-until-up: a cloud launch whose every placement lacked capacity starts over (retryUntilUp.ts). */
  retryUntilUp?: boolean;
  /** Cancels provisioning of a cloud cluster (what was created is terminated with proof). */
  provisionSignal?: AbortSignal;
  /** Each provisioning attempt on a cloud cluster, as it ends. */
  onAttempt?(a: AttemptReport): void;
  /** Reorders a cloud launch's placements (a managed job's recovery strategy). */
  placementOrder?(placements: Placement[]): Placement[];
  /**
   * --fast: on a cluster that is UP, skip provisioning, file mounts and buckets; the workdir is
   * sent only if it changed since the last sync from here, setup only if its hash changed.
   */
  fast?: boolean;
  /** A managed-jobs controller cluster (managed/remote/controllerCluster.ts): its node gets the identity that launches job clusters. */
  jobsController?: boolean;
  /** The priced plan (launchPlan.ts pricedPlan), once, before a new cloud cluster is provisioned. */
  onPlan?(plan: PricedPlan): void;
}

export interface LaunchResult extends JobOutcome {
  cluster: string;
}

/**
 * `sky launch`: bring the cluster up — claim local/ssh hosts, or run the provision loop on a
 * cloud provider (launchProvider.ts) — sync the workdir and file mounts, then run setup + run
 * as a new job. Launching onto an existing cluster reuses it, as SkyPilot does.
 */
export async function launch(ctx: OpsContext, req: LaunchRequest): Promise<LaunchResult> {
  const { task, envs, secrets, dir, warnings } = await loadTaskForRun(req);
  warnings.forEach((w) => ctx.warn(w));
  keepRegistryPasswordSecret(envs, secrets);
  const name = req.cluster ?? generateClusterName(ctx.user);
  checkClusterName(name);
  checkSyncSources(task, dir);
  const existing = await ctx.store.read((db) => getCluster(db, name));
  const cloud = cloudFor(req, task, existing);
  const notOurs = existing && notOursReason(existing);
  if (notOurs) throw new OpsError('failed', `cluster ${name} exists but ${notOurs}: Skydeck does not launch into it; pick another name (-c)`);
  if (existing && existing.provider !== cloud) {
    throw new OpsError('usage', `cluster ${name} already exists on ${existing.provider}, not ${cloud}: pick another name (-c) or drop --cloud`);
  }
  if (cloud === 'local') {
    const note = localMountNote(Object.keys(task.fileMounts), process.env.HOME || os.homedir());
    if (note) ctx.warn(note);
  }
  // Credentials for bucket mounts are settled (or refused) before anything is provisioned.
  const buckets = await planBuckets(ctx, task, cloud);
  const autostop = autostopOf(ctx, cloud, task, req);
  const fast = !!req.fast && existing?.status === 'UP';
  if (req.fast && !fast) ctx.progress(`--fast: ${existing ? `${name} is ${existing.status}, not UP` : `${name} does not exist yet`}; launching in full`);
  let row: ClusterRecord;
  // A cluster this launch bootstrapped (made, or started again) has its autostop held until
  // the job is in (agentAutostop.ts): lifted after the submit, or when the launch fails.
  let held = false;
  if (fast) {
    row = existing;
    ctx.progress(`--fast: reusing ${name} as it is (UP); no provisioning, file mounts or buckets`);
  } else if (providerOf(ctx, cloud)) {
    const image = taskContainerImage(task);
    if (image && !(INSTALLING_CLOUDS as readonly string[]).includes(cloud)) throw new OpsError('unavailable', `image_id: docker:… runs on aws, gcp, azure, ssh and local, not on ${cloud}: drop image_id`);
    if (image && existing) checkReuse(existing, image);
    if (!existing && req.onPlan) {
      // Pricing informs; it never stops a launch.
      try {
        req.onPlan(pricedPlan(task, cloud, req));
      } catch (e) {
        ctx.warn(`the launch plan's prices could not be shown: ${(e as Error).message}`);
      }
    }
    const round = (onRound?: (a: AttemptReport) => void) => launchOnProvider(ctx, name, task, {
      cloud, cloudOverride: req.cloud?.toLowerCase(), region: req.region, existing, autostop, signal: req.provisionSignal,
      onAttempt: (a) => { onRound?.(a); req.onAttempt?.(a); },
      placementOrder: req.placementOrder, jobsController: req.jobsController,
      ...(image ? { container: { image, envs: { ...envs, ...secrets } } } : {}),
    });
    row = req.retryUntilUp ? await retryUntilUp(ctx, name, req.provisionSignal, round) : await round();
    held = existing?.status !== 'UP';
  } else {
    row = await launchReachable(ctx, name, cloud, task, existing, autostop, { ...envs, ...secrets });
  }
  const client = ctx.connections.client(row);
  const handle = readHandle(row);
  const lift = async () => {
    if (held) {
      held = false;
      await liftLaunchHold(ctx, client, row);
    }
  };
  let jobId: number;
  try {
    if (!fast) {
      await ensureNamedBuckets(ctx, task, dir, row, req.provisionSignal);
      await lookUpS3Regions(ctx, buckets.filter((p) => p.regionPending), req.provisionSignal);
      // A reused (or restarted) cluster's identity was made for the buckets of its first launch.
      if (existing) await grantPlannedBuckets(ctx, row, buckets);
    }
    // Every node gets the workdir at once (multi-node ssh clusters; one node: just the head).
    const extras = { buckets: fast ? [] : forCluster(ctx, buckets, row), gitEnvs: { ...envs, ...secrets }, fast };
    await Promise.all([syncAll(ctx, client, task, dir, handle.workdir, extras), syncWorkers(ctx, row, task, dir, extras)]);
    if (req.provisionSignal?.aborted) {
      const created = !existing && isProviderCluster(row);
      // A cluster this launch created is terminated next: nothing left to lift the hold on.
      if (created) held = false;
      await cancelBeforeSubmit(ctx, row, created);
    }
    const setup = await setupPlan(ctx, client, row, task, envs, secrets, existing?.status === 'UP', fast);
    const withSetup = setup.run && !req.noSetup;
    ctx.progress(`Submitting ${task.name ?? 'the task'} to ${name}${req.noSetup ? ' (--no-setup)' : setup.say ? ` (${setup.say})` : ''}`);
    jobId = await submitJob(client, jobSpecOf(task, envs, { user: ctx.user, workdir: handle.workdir, withSetup, secrets }));
    if (withSetup) setup.record(jobId);
  } finally {
    await lift();
  }
  await assertNoTeardownSince(ctx, row, jobId);
  req.onSubmitted?.(jobId, name);
  if (req.detach) return { cluster: name, jobId };
  return { cluster: name, jobId, final: await followJob(client, jobId, req) };
}

/**
 * Cancelled after the cluster came up but before the submit: a cluster this launch created
 * is terminated with proof (nobody asked to keep it, and it bills); one it reused is kept.
 */
async function cancelBeforeSubmit(ctx: OpsContext, row: ClusterRecord, created: boolean): Promise<never> {
  if (!created) throw new OpsError('failed', `launch on ${row.name} cancelled before its job was submitted; the cluster is kept`);
  ctx.progress(`Cancelled; terminating ${row.name}, which this launch created`);
  await downProvider(ctx, row, false);
  throw new OpsError('failed', `launch on ${row.name} cancelled before its job was submitted; the cluster it created is terminated (confirmed by the cloud)`);
}

/**
 * After a submit: a down that flagged the row before we could read it may have started
 * before the job reached the agent, and will cancel it. Say so instead of "submitted"; a
 * down that flags the row after this read began after the submit: an ordinary down of a
 * running job.
 */
export async function assertNoTeardownSince(ctx: OpsContext, row: ClusterRecord, jobId: number): Promise<void> {
  const cur = await ctx.store.read((db) => getCluster(db, row.name));
  const why = !cur || cur.uid !== row.uid ? `${row.name} was torn down meanwhile` : teardownUnderWay(cur);
  if (why) throw new OpsError('failed', `job ${jobId} reached ${row.name}, but a teardown started before it did, so it will not run: ${why}`);
}

/** local and ssh: claim this machine or pool hosts, install the agent, mark UP. */
async function launchReachable(
  ctx: OpsContext, name: string, cloud: string, task: Task, existing: ClusterRecord | undefined, autostop: { minutes: number | null; down: boolean },
  envs: Record<string, string>,
): Promise<ClusterRecord> {
  const image = taskContainerImage(task);
  if (existing) checkReuse(existing, image);
  if (!(REACHABLE_CLOUDS as readonly string[]).includes(cloud)) {
    throw new OpsError('unavailable', `launching on ${cloud} is not available yet; this version runs tasks on "local" (this machine) and "ssh" (your machines)`);
  }
  if (task.numNodes > 1 && cloud === 'local') {
    throw new OpsError('usage', `num_nodes: ${task.numNodes}: the local cloud is this one machine; use an SSH pool with ${task.numNodes} hosts or a cloud`);
  }
  if (existing && existing.num_nodes < task.numNodes) {
    throw new OpsError('usage', `cluster ${name} has ${existing.num_nodes} node(s); the task needs ${task.numNodes}: launch it on a new cluster (-c)`);
  }
  if (process.platform === 'win32' && cloud === 'local') {
    throw new OpsError('unavailable', 'the local cloud needs Linux or macOS; on Windows run Skydeck inside WSL');
  }
  const pool = cloud === 'ssh' ? choosePool(ctx, task.resources.region ?? infraPool(task.resources.infra)) : undefined;
  ctx.progress(existing ? `Reusing cluster ${name}` : `Claiming ${cloud === 'ssh' ? `a host of pool ${pool!.name}` : 'this machine'} for ${name}`);
  if (cloud === 'local') {
    const problem = localBaseProblem(ctx.workspaceRoot, name);
    if (problem) throw new OpsError('usage', `cannot launch ${name} on this machine: ${problem}. Remove the link (or move the folder away) and retry`);
  }
  const intent = await writeIntent(ctx, name, cloud as 'local' | 'ssh', task.numNodes, pool, autostop);
  let row = intent.row;
  // A new row starts from an empty directory: a jobs.db or agent already there was not its own.
  if (intent.cleared) {
    ctx.progress(`Removed files no cluster row owned from ${localBaseDir(ctx.workspaceRoot, name)} (left by an earlier cluster ${name}, or shipped with the workspace)`);
  }
  try {
    // The container first: the agent is installed into it (containerLaunch.ts).
    if (image && row.status !== 'UP') row = await readyContainer(ctx, row, image, task, envs);
    const client = ctx.connections.client(row);
    ctx.progress(`Connecting to ${name} and checking its agent`);
    const loc = await client.connect();
    if (row.status !== 'UP') {
      await client.configure({ cluster_name: name, node_ips: [row.head_address ?? '127.0.0.1'] });
      await bringUpWorkers(ctx, row, client);
      const handle = { ...readHandle(row), workdir: await makeWorkdir(client, loc.base, cloud) };
      row = await updateCluster(ctx, row, { status: 'UP', handle: JSON.stringify(handle), last_error: null }, {
        kind: 'up', message: `agent ready at ${loc.base}`,
      });
    }
  } catch (e) {
    // The row stays (with its error) so the user sees it and can retry or down it.
    await updateCluster(ctx, row, { last_error: (e as Error).message }, { kind: 'launch-failed', message: (e as Error).message }).catch(() => undefined);
    throw e;
  }
  return row;
}

function infraPool(infra: string | undefined): string | undefined {
  const m = /^ssh\/([^/]+)/i.exec(infra ?? '');
  return m?.[1];
}

/** The job's working directory on the head: ~/sky_workdir as in SkyPilot, per cluster on local. */
async function makeWorkdir(client: AgentClient, base: string, cloud: string): Promise<string> {
  const script = cloud === 'local' ? `mkdir -p "$1/sky_workdir" && cd "$1/sky_workdir" && pwd` : 'mkdir -p "$HOME/sky_workdir" && cd "$HOME/sky_workdir" && pwd';
  const r = await client.transport.exec(['/bin/sh', '-c', script, 'sh', base]);
  if (r.code !== 0) throw new OpsError('failed', `could not create the workdir on ${client.transport.description}: ${r.stderr.toString().trim()}`);
  return r.stdout.toString().trim();
}
