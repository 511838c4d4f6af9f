import type { ClusterRecord } from '../state';
import type { Task } from '../task';
import { placementsOf, provision, resumeCluster, needsReconcile, type AttemptReport } from '../provision';
import { teardownUnderWay } from '../provision';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { envFor } from './providerEnv';
import { agentBootstrap } from './agentBootstrap';
import { LAUNCH_HOLD_SECONDS } from './agentAutostop';
import { bucketMountsOf } from './bucketPlan';
import type { BucketAccess, Placement } from '../clouds/provider';

export interface ProviderLaunchOptions {
  cloud: string;
  /** --cloud: every candidate goes to this cloud. */
  cloudOverride?: string;
  /** For candidates that name no region. */
  region?: string;
  existing?: ClusterRecord;
  autostop: { minutes: number | null; down: boolean };
  /** Cancels provisioning at the next safe point; what was created is terminated with proof. */
  signal?: AbortSignal;
  onAttempt?(a: AttemptReport): void;
  /** Reorders the placements (a managed job's recovery strategy); default the task's order. */
  placementOrder?(placements: Placement[]): Placement[];
  /** `image_id: docker:…`: the machines get the cloud's default image, the task this container. */
  container?: { image: string; envs: Record<string, string> };
  /** A managed-jobs controller cluster: its node's identity may launch job clusters (Placement.jobsController). */
  jobsController?: boolean;
}

/**
 * Brings a provider cluster UP: reuses an UP one, starts a STOPPED one in place, or runs the
 * provision loop over the task's placements for this cloud. Returns the UP row.
 */
export async function launchOnProvider(ctx: OpsContext, name: string, task: Task, opts: ProviderLaunchOptions): Promise<ClusterRecord> {
  const env = envFor(ctx, opts.cloud);
  // Refused before anything is looked up or made: without it the node could launch nothing.
  if (opts.jobsController && !env.provider.controllerIdentity) {
    throw new OpsError('unavailable', `a managed-jobs controller cluster on ${opts.cloud} has no scoped identity to launch job clusters with; put the controller on aws, gcp or azure, an ssh pool or this machine`);
  }
  // A launch's job follows the bootstrap: autostop is held off until then (launch.ts lifts it).
  const base = ctx.bootstrap ?? agentBootstrap(ctx);
  const plain = base.withHold?.(LAUNCH_HOLD_SECONDS) ?? base;
  const c = opts.container;
  const bootstrap = c ? plain.withContainer?.({ image: c.image, task, envs: c.envs }) : plain;
  if (!bootstrap) throw new OpsError('unavailable', `image_id: docker:… is not supported by this cluster's bootstrap on ${opts.cloud}`);
  const row = opts.existing;
  const busy = row && teardownUnderWay(row);
  if (busy) throw new OpsError('failed', busy);
  if (row?.status === 'UP') {
    ctx.progress(`Reusing cluster ${name}`);
    return row;
  }
  if (row && (row.status === 'STOPPED' || needsReconcile(row))) {
    ctx.progress(`Starting cluster ${name} again`);
    const r = await resumeCluster(env, row, { bootstrap, ports: task.resources.ports, signal: opts.signal });
    if (!r.ok) throw new OpsError('failed', `${r.error}. The cluster is kept`);
    return r.row!;
  }
  // The buckets travel with each placement, so a cloud that scopes the node's identity to
  // them (AWS instance profile, GCP service account, Azure managed identity) sees them at run
  // time; the loop only carries them, and records them with the placement, where the terminate
  // finds them (refOf).
  const bucketAccess: BucketAccess[] = bucketMountsOf(task).map(({ target: t }) => ({
    store: t.store, bucket: t.bucket, ...(t.prefix ? { prefix: t.prefix } : {}), ...(t.account ? { account: t.account } : {}),
  }));
  // A container image is no machine image: the nodes boot the cloud's default one.
  const all = placementsOf(c ? { ...task.resources, imageId: undefined } : task.resources, opts.cloudOverride).map((p) => ({
    ...p, cloud: p.cloud || opts.cloud, ...(!p.region && opts.region ? { region: opts.region } : {}),
    ...(bucketAccess.length ? { bucketAccess } : {}),
    ...(opts.jobsController ? { jobsController: true } : {}),
  }));
  const mine = all.filter((p) => p.cloud === opts.cloud);
  const placements = opts.placementOrder ? opts.placementOrder(mine) : mine;
  // Failover stays within one cloud for now; say so rather than silently dropping choices.
  if (mine.length < all.length) ctx.warn(`only the ${opts.cloud} candidates are tried; ${all.length - mine.length} candidate(s) on other clouds are skipped`);
  const res = await provision(env, {
    name, numNodes: task.numNodes, placements, ports: task.resources.ports, bootstrap, signal: opts.signal,
    resources: JSON.stringify(task.resources), autostop: opts.autostop,
    onAttempt: (a) => {
      if (a.outcome === 'failed') ctx.warn(`attempt on ${[a.placement.region, a.placement.zone].filter(Boolean).join('/') || a.placement.cloud} failed: ${a.kind}: ${a.reason}`);
      opts.onAttempt?.(a);
    },
  });
  if (!res.ok) throw new OpsError('failed', res.error!);
  return res.row!;
}
