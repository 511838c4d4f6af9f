import { randomBytes, randomUUID } from 'node:crypto';
import { ProviderError, type RunRequest, type RunResult } from '../provider';
import { gcpCall } from './errors';
import { insertInstance } from './insertRetry';
import type { GcpClients } from './clients';
import { toLabels, TAGS_METADATA_KEY } from './labels';
import { waitOperation, type WaitOptions } from './operations';
import { DEFAULT_DISK_GB, shapeOf } from '../nodeShape';
import { imageFor, pickMachine, type Machine } from './shape';
import { LABEL_HEAD, statusOf, wakeCall, type GcpInstance } from './status';
import { DEFAULT_ARM_IMAGE, DEFAULT_IMAGE, GCP_SSH_USER } from './options';
import { gcpArmType } from '../../catalog/gcpShipped';
import { CONTROLLER, JOB_INSTANCE_PREFIX } from './controllerRole';
import type { NewInstance, Operation } from './types';
import { lastSegment, regionOfZone } from './zones';

export interface LaunchContext {
  c: GcpClients;
  wait: WaitOptions;
  zone: string;
  network: string;
  publicKey: string;
  /** Network tag the cluster's firewall rule targets; none for a controller VM's job cluster (its rule targets its account). */
  netTag?: string;
  /** The region's machine types (fetched and cached); asked only when no type is named. Default: the shipped table. */
  catalog?(): Promise<Parameters<typeof pickMachine>[2]>;
  /** The autodown service account's e-mail, made ready (autodownIdentity.ts); asked only for an autodown head. */
  autodownAccount(): Promise<string>;
  /**
   * The account every node runs as, the head too: the cluster's own account for its GCS buckets
   * (bucketIdentity.ts), already granted them and, for an autodown cluster, the autodown role; or,
   * on a controller VM, the controller's jobs account (its jobs rule's target, with or without buckets).
   */
  bucketAccount?: string;
  /** First wait before an insert is tried again (a new service account not yet visible). */
  backoffMs: number;
  /**
   * This provider runs on a managed-jobs controller VM (GcpProviderOptions.jobClusters): the
   * instances it creates are named JOB_INSTANCE_PREFIX…, the only ones its identity may change.
   */
  jobClusters?: boolean;
  log?(message: string): void;
}

/**
 * Brings the uid's instances up to req.numNodes as SkyPilot's run_instances does: stopped
 * ones are started (their disks hold the user's data), only the shortfall is created — one
 * insert per node, all in flight together, each awaited to DONE so a zone's capacity or quota
 * failure is thrown here (the loop then cleans up by uid and moves to the next zone).
 */
export async function launch(ctx: LaunchContext, req: RunRequest, existing: GcpInstance[]): Promise<RunResult> {
  if (existing.some((i) => statusOf(i.status) === 'stopping')) {
    throw new ProviderError('transient', 'some instances are still stopping; they can be started once stopped');
  }
  const odd = existing.find((i) => statusOf(i.status) === 'unknown');
  if (odd) throw new ProviderError('transient', `instance ${odd.name} is in status ${odd.status ?? '(none)'}, which Skydeck does not know; retry once GCP reports it running or stopped`);
  const stopped = existing.filter((i) => wakeCall(i.status));
  await Promise.all(stopped.map((i) => wakeOne(ctx.c, ctx.wait, i)));
  const need = req.numNodes - existing.length;
  const resumed = stopped.map((i) => i.name!);
  if (need <= 0) return { created: [], resumed };

  const machine = pickMachine(req.placement, shapeOf(req), req.placement.instanceType ? undefined : await ctx.catalog?.());
  const hasHead = existing.some((i) => i.labels?.[LABEL_HEAD] === 'true');
  const names = Array.from({ length: need }, () => instanceName(req.clusterName, req.uid, !!ctx.jobClusters && !req.placement.jobsController));
  const autodownHead = !hasHead && !!req.autostop?.down;
  const headAccount = autodownHead ? ctx.bucketAccount ?? await ctx.autodownAccount() : ctx.bucketAccount;
  // A controller's node calls Compute (and IAM's listing) as its account: the broad scope, IAM decides.
  const controller = !!req.placement.jobsController;
  const buckets = (req.placement.bucketAccess ?? []).some((a) => a.store === 'gcs');
  const target = { c: ctx.c, project: ctx.wait.project, zone: ctx.zone, backoffMs: ctx.backoffMs, log: ctx.log, ...(controller ? { purpose: CONTROLLER } : {}) };
  const ops = await Promise.all(names.map((name, n) => {
    const head = !hasHead && n === 0;
    const account = nodeAccount(head ? headAccount : ctx.bucketAccount, (head && autodownHead) || controller, buckets);
    return insertInstance(target, instanceResource(ctx, req, machine, name, head, account));
  }));
  // Every insert is awaited even after one fails, so none is left in flight unseen.
  const results = await Promise.allSettled(ops.map((op) => waitOperation(ctx.c, 'instances.insert', op, ctx.wait)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return { created: names, resumed };
}

/** Starts (TERMINATED, STOPPED) or resumes (SUSPENDED) one VM and waits for the operation. */
export async function wakeOne(c: GcpClients, w: WaitOptions, i: GcpInstance): Promise<void> {
  const call = wakeCall(i.status);
  if (!call) return;
  const path = `projects/${w.project}/zones/${lastSegment(i.zone)}/instances/${i.name}/${call}`;
  const op = await gcpCall(`instances.${call}`, () => c.post<Operation>(path, undefined, { requestId: randomUUID() }));
  // Awaited: a start or resume fails with ZONE_RESOURCE_POOL_EXHAUSTED like an insert does.
  await waitOperation(c, `instances.${call}`, op, w);
}

/**
 * "[a-z]([-a-z0-9]*[a-z0-9])?", at most 63: cluster name slug, uid prefix, random suffix (the
 * uid and the suffix keep names unique; lookups go by the uid label, never by name). A job
 * cluster of a controller VM starts with JOB_INSTANCE_PREFIX (10 + 30 + 14 = 54 characters at
 * most): that prefix is what the controller's conditional IAM binding allows (controllerRole.ts).
 * Only those get it, not every cluster: a cluster launched from a user's machine (the controller
 * VM itself included) must stay out of the controller's reach, so any other name that would start
 * with the prefix (a cluster named "skydeck-j-…") gets "sky-" in front.
 */
export function instanceName(clusterName: string, uid: string, jobCluster = false): string {
  const slug = clusterName.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^[^a-z]+/, '').slice(0, 30).replace(/-+$/, '');
  const name = `${slug || 'sky'}-${uid.replace(/[^a-z0-9]/g, '').slice(0, 8)}-${randomBytes(2).toString('hex')}`;
  if (jobCluster) return `${JOB_INSTANCE_PREFIX}${name}`;
  return name.startsWith(JOB_INSTANCE_PREFIX) ? `sky-${name}` : name;
}

/** Google's advice for a VM's account: the broad scope, and what it may do set by IAM roles alone. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** Read and write objects of Cloud Storage (what rclone does); the bucket roles decide which. */
export const STORAGE_RW_SCOPE = 'https://www.googleapis.com/auth/devstorage.read_write';

type NodeAccount = { email: string; scopes: string[] } | undefined;

/**
 * A node's account and scopes: storage for a bucket account, the broad scope for the autodown
 * head's self-delete and for a managed-jobs controller's calls.
 */
function nodeAccount(email: string | undefined, broad: boolean, buckets: boolean): NodeAccount {
  if (!email) return undefined;
  const scopes = [...(broad ? [CLOUD_PLATFORM_SCOPE] : []), ...(buckets ? [STORAGE_RW_SCOPE] : [])];
  return { email, scopes };
}

function instanceResource(ctx: LaunchContext, req: RunRequest, m: Machine, name: string, head: boolean, account: NodeAccount): NewInstance {
  const shape = shapeOf(req);
  const zone = ctx.zone;
  const labels = { ...toLabels(req.tags), ...(head ? { [LABEL_HEAD]: 'true' } : {}) };
  const spot = req.placement.useSpot;
  return {
    name,
    machineType: `zones/${zone}/machineTypes/${m.machineType}`,
    labels,
    // Setting a tag needs compute.instances.setTags, which a controller VM does not hold.
    ...(ctx.netTag ? { tags: { items: [ctx.netTag] } } : {}),
    metadata: { items: [
      { key: 'ssh-keys', value: `${GCP_SSH_USER}:${ctx.publicKey}` },
      { key: TAGS_METADATA_KEY, value: JSON.stringify(req.tags) },
      // A project with OS Login on ignores ssh-keys metadata; the instance-level setting wins
      // (unless an org policy enforces OS Login, which then fails SSH with a clear denial).
      { key: 'enable-oslogin', value: 'FALSE' },
    ] },
    disks: [{
      boot: true, autoDelete: true, type: 'PERSISTENT',
      initializeParams: {
        sourceImage: imageFor(shape.imageId, regionOfZone(zone), gcpArmType(m.machineType) ? DEFAULT_ARM_IMAGE : DEFAULT_IMAGE), diskSizeGb: String(shape.diskSize ?? DEFAULT_DISK_GB),
        diskType: `zones/${zone}/diskTypes/pd-balanced`, labels,
      },
    }],
    networkInterfaces: [{ network: `global/networks/${ctx.network}`, accessConfigs: [{ name: 'External NAT', type: 'ONE_TO_ONE_NAT' }] }],
    // Autodown: the head's agent deletes the cluster (agent/skydeck_agent_lib/gce_stop.py) as
    // Skydeck's own account, whose one role grants get/list/delete of instances and nothing
    // else. GCS buckets: every node runs as the cluster's account, granted only those buckets
    // (rclone finds it through application-default credentials). A controller VM's job cluster
    // runs as the controller's jobs account, which its SSH rule targets (with no scope unless it
    // mounts GCS: a token of no scope reaches no API). Otherwise a node gets none.
    ...(account ? { serviceAccounts: [account] } : {}),
    ...(m.guest ? { guestAccelerators: [{ acceleratorType: `zones/${zone}/acceleratorTypes/${m.guest.acceleratorType}`, acceleratorCount: m.guest.count }] } : {}),
    // GPU VMs cannot live-migrate: GCP requires TERMINATE on host maintenance. Spot VMs are
    // deleted on preemption (not stopped): a stopped spot VM keeps billing its disk and the
    // loop reads "gone" as preempted and fails over, as with AWS one-time spot.
    scheduling: spot
      ? { provisioningModel: 'SPOT', instanceTerminationAction: 'DELETE', onHostMaintenance: 'TERMINATE', automaticRestart: false }
      : m.gpu ? { provisioningModel: 'STANDARD', onHostMaintenance: 'TERMINATE', automaticRestart: true } : { provisioningModel: 'STANDARD' },
  };
}
