import type { PortRange } from '../task';
import type { StoreKind } from '../storage/types';
import type { NodeShape } from './nodeShape';
import type { BucketGrant, IdentityRelease, ReleaseOptions } from './clusterIdentity';

export type { NodeShape };

/** Tags every Skydeck cloud resource carries (leak invariant 1); the sweep reads them back. */
export const TAG_CLUSTER = 'skydeck-cluster';
export const TAG_UID = 'skydeck-cluster-uid';
export const TAG_WORKSPACE = 'skydeck-workspace';

/**
 * Per-instance lifecycle as every cloud reports it, mapped to one vocabulary. "unknown": the
 * cloud said something the provider has no mapping for; it is live (never gone) and never
 * counts as running or stopped.
 */
export type InstanceStatus = 'pending' | 'running' | 'stopping' | 'stopped' | 'terminating' | 'terminated' | 'unknown';

export interface InstanceInfo {
  id: string;
  status: InstanceStatus;
  region?: string;
  zone?: string;
  /** Epoch ms the cloud says it was created. */
  launchedAt: number;
  tags: Record<string, string>;
  instanceType?: string;
  /** Rough on-demand (or spot) price, USD per hour, for the sweep's cost hint. */
  costPerHour?: number;
  publicIp?: string;
  privateIp?: string;
}

/** One place to try: the cloud plus as much of region / zone / instance shape as is known. */
export interface Placement {
  cloud: string;
  region?: string;
  zone?: string;
  instanceType?: string;
  useSpot: boolean;
  /** The node shape when no instanceType pins it (cpus, memory, accelerators), disk and image. */
  resources?: NodeShape;
  /**
   * The buckets the task mounts, for clouds that scope the node's own identity to exactly
   * these (AWS: a per-cluster instance profile; GCP: a per-cluster service account; Azure: a
   * per-cluster managed identity with a role on each container). Others ignore it.
   */
  bucketAccess?: BucketAccess[];
  /**
   * A managed-jobs controller cluster: its node's own identity may launch and tear down job
   * clusters (AWS: a policy on the per-cluster role, aws/controllerPolicy.ts); ops/launchProvider.ts
   * refuses it on clouds that have no such identity yet.
   */
  jobsController?: boolean;
}

/** One bucket (and prefix, '' or absent for all of it) a cluster's nodes read and write. */
export interface BucketAccess {
  store: StoreKind;
  bucket: string;
  prefix?: string;
  /** Azure: the storage account holding the container. */
  account?: string;
  /**
   * The holder may create, tag, empty and delete the bucket itself: a bucket a managed job
   * names, which its controller makes and ends (AWS only). A node's mounts never need it.
   */
  manage?: true;
  /**
   * Azure: a container a managed job gives by `name:`, which must exist already (its grant,
   * made from this machine at submit, sits on it; the controller may not make one): checked first.
   */
  mustExist?: true;
}

/** Which instances a call is about: the cluster's uid, in the place it was launched. */
export interface ClusterRef {
  uid: string;
  region?: string;
  zone?: string;
  /**
   * The account the cluster lives in (AWS account id, GCP project, Azure subscription), as
   * recorded at intent time. Providers address that account, or refuse with a ProviderError
   * when the current credentials point elsewhere (never an empty answer). Absent: the current one.
   */
  account?: string;
  /**
   * The buckets the cluster's latest launch named (its recorded placement's bucketAccess), so a
   * terminate can take back what a cloud granted on them (GCP: bucket IAM bindings).
   */
  bucketAccess?: BucketAccess[];
  /** The cluster is a managed-jobs controller (its recorded placement's jobsController): its identity goes at its down. */
  jobsController?: boolean;
}

export interface RunRequest extends ClusterRef {
  clusterName: string;
  workspaceId: string;
  numNodes: number;
  placement: Placement;
  /** Tags to put on every instance (the three Skydeck tags at least). */
  tags: Record<string, string>;
  /** Autodown: an OS shutdown (the agent's autostop) should delete the instance, not stop it. */
  shutdownTerminates?: boolean;
  /**
   * Autostop is set: the head gets what the agent's self-stop needs where an OS shutdown is not
   * enough (GCP autodown, Azure): a cloud identity limited to this cluster (ops/autostopPlan.ts).
   */
  autostop?: { down: boolean };
  /** The task's ports, opened after launch (openPorts): passed so a provider that cannot open them refuses before creating anything. */
  ports?: PortRange[];
}

export interface RunResult {
  created: string[];
  /** Stopped instances of the same uid that were started again. */
  resumed: string[];
}

/** What a terminate call's own answer proves (EC2 TerminateInstances names each id's new state). */
export interface TerminateAnswer {
  /** Ids the cloud answered with shutting-down/terminated. */
  ending: string[];
}

/** A region (or zone) the sweep could not list: its strays are unknown, not absent. */
export interface UnlistedPart {
  /** Absent: the whole account could not be listed. */
  region?: string;
  kind: ProviderErrorKind | 'unknown';
  message: string;
}

/** What one sweep listing saw, and what it could not see. */
export interface TaggedListing {
  /** The account listed (AWS account id, GCP project, Azure subscription). */
  account: string;
  instances: InstanceInfo[];
  /** Regions (or zones) listed completely, for the summary. */
  listed: string[];
  unlisted: UnlistedPart[];
  /** Per-cluster identities with Skydeck tags (AWS: bucket roles; Azure: Blob role assignments), for clouds that create them. */
  identities?: TaggedIdentity[];
}

/** A cloud identity Skydeck made for one cluster, found by its tags. */
export interface TaggedIdentity {
  /** What it is, for the user: "IAM role". */
  kind: string;
  name: string;
  tags: Record<string, string>;
}

export interface ClusterInfo {
  head: { id: string; address: string };
  workers: { id: string; address: string }[];
  sshUser: string;
  sshKeyPath?: string;
  sshPort?: number;
  /** GPUs each node was given that the node may not see itself (a pod's nvidia.com/gpu without
   * nvidia-smi inside): declared to the agent as capacity. */
  accelerators?: Record<string, number>;
}

/**
 * Why a cloud call failed, typed so the loop can decide without parsing messages:
 * capacity/quota → try the next placement; auth/config → stop and tell the user what to fix;
 * transient → retry with backoff.
 */
export type ProviderErrorKind = 'capacity' | 'quota' | 'auth' | 'config' | 'transient';

export class ProviderError extends Error {
  constructor(readonly kind: ProviderErrorKind, message: string, readonly hint?: string) {
    super(message);
    this.name = 'ProviderError';
  }
}

const KINDS: readonly string[] = ['capacity', 'quota', 'auth', 'config', 'transient'];

/**
 * By shape, not instanceof: each cloud is bundled separately (dist/clouds/*.js) with its own
 * copy of the class, so an error thrown there is not an instance of the caller's ProviderError.
 */
export function isProviderError(e: unknown): e is ProviderError {
  const o = e as { name?: unknown; kind?: unknown } | null;
  return e instanceof Error && o?.name === 'ProviderError' && typeof o.kind === 'string' && KINDS.includes(o.kind);
}

/**
 * One cloud, shaped like SkyPilot's per-cloud instance.py. Methods may throw (real SDKs do);
 * the core wraps every call (see provision/call.ts). queryInstances never answers an error
 * with an empty list: it throws a ProviderError instead.
 */
export interface Provider {
  readonly cloud: string;
  /**
   * Creates the cluster's instances, or starts its stopped ones (same uid). Must be
   * idempotent per uid (called again after an unknown outcome it creates no duplicates), and
   * a capacity/quota/auth/config error promises that this call created nothing.
   */
  runInstances(req: RunRequest): Promise<RunResult>;
  /** Every instance tagged with the uid, any status (terminated ones may or may not appear). */
  queryInstances(ref: ClusterRef): Promise<InstanceInfo[]>;
  stopInstances(ref: ClusterRef): Promise<void>;
  startInstances(ref: ClusterRef): Promise<void>;
  /** Why this cloud cannot stop a cluster at all (Kubernetes), said before anything changes. */
  readonly cannotStop?: string;
  /**
   * True when this provider gives a managed-jobs controller cluster's node its own scoped
   * identity (Placement.jobsController): allowed to launch and end job clusters, nothing more.
   */
  readonly controllerIdentity?: boolean;
  /**
   * What the CLI on a controller node of this cloud needs besides the VM's own credentials
   * (AWS: the region, which an EC2 VM's SDK does not find by itself; GCP: that it is a controller,
   * so its job clusters get the instance-name prefix its conditional binding allows, and the jobs
   * account those with GCS mounts run as).
   */
  controllerNodeEnv?(ref: ClusterRef): Record<string, string>;
  /** Between two queries while waiting for instances to run, when asking is cheap (Kubernetes); else timing.pollMs. */
  readonly runningPollMs?: number;
  /**
   * Asks to terminate the uid's listed instances (`ids`: only those). An id in `ids` no
   * listing shows may be ended by id where the cloud allows it; the answer then names the ids
   * the cloud itself reported shutting down or terminated: proof for ids listings lag behind.
   */
  terminateInstances(ref: ClusterRef, ids?: string[]): Promise<TerminateAnswer | void>;
  /** Resolves when every instance of the uid reached `state`, or throws on timeout. */
  waitInstances(ref: ClusterRef, state: 'running' | 'stopped' | 'terminated', timeoutMs: number, signal?: AbortSignal): Promise<void>;
  clusterInfo(ref: ClusterRef): Promise<ClusterInfo>;
  /**
   * Every instance carrying Skydeck tags in `account` (default: the current one), every
   * region. A region that fails is named in `unlisted`; a failure of the whole account (no
   * credentials, credentials pointing at another account) throws a ProviderError.
   */
  listTagged(account?: string): Promise<TaggedListing>;
  /**
   * The account the current credentials and configuration point at (AWS: STS
   * GetCallerIdentity; GCP: the project; Azure: the subscription). Throws a ProviderError
   * when it cannot be determined. Clouds without accounts leave it out. `region`: the placement's
   * (Kubernetes: the context, whose API server is the "account"); the others ignore it.
   */
  identity?(region?: string): Promise<string>;
  openPorts(ref: ClusterRef, ports: PortRange[]): Promise<void>;
  /** Zones to try, in order, when a placement names a region but no zone. */
  zonesOf?(region: string): string[];
  /**
   * The resource id of the identity the cluster's nodes read their buckets with, where a node
   * may hold several and a tool must be told which (Azure: the user-assigned one next to the
   * head's autostop identity). Clouds with one identity per node leave it out.
   */
  bucketIdentity?(ref: ClusterRef): string | undefined;
  /**
   * Widens the running cluster's own identity to these buckets as well (a reused cluster, an
   * exec naming new buckets); throws a ProviderError when the nodes have no such identity.
   */
  grantBuckets?(ref: ClusterRef, access: BucketAccess[]): Promise<BucketGrant>;
  /**
   * Throws the ProviderError grantBuckets would throw before changing anything (AWS: the role's
   * policy quota), so a grant that cannot be made is never recorded on the row: a recorded
   * bucket is part of the placement the cluster is started again with.
   */
  checkBuckets?(ref: ClusterRef, access: BucketAccess[]): Promise<void>;
  /** After a confirmed terminate: waits (bounded) for the cluster's identities to be deleted, and proves it. */
  releaseIdentities?(ref: ClusterRef, opts: ReleaseOptions): Promise<IdentityRelease>;
  /** Deletes the identities of a cluster no row owns whose instances are gone (the caller checked), with proof. */
  deleteIdentities?(ref: ClusterRef): Promise<IdentityRelease>;
}

/**
 * How ops find a cloud's provider. `get` may load a heavy SDK on first use; `clouds` names
 * the clouds it can serve (the leak sweep asks each).
 */
export interface ProviderRegistry {
  clouds: readonly string[];
  get(cloud: string): Provider | undefined;
}

export const noProviders: ProviderRegistry = { clouds: [], get: () => undefined };

/** A registry over already-built providers (tests inject the fake this way). */
export function staticProviders(...providers: Provider[]): ProviderRegistry {
  return { clouds: providers.map((p) => p.cloud), get: (c) => providers.find((p) => p.cloud === c.toLowerCase()) };
}

/** Live = costs money or may come back: anything not terminating/terminated. */
export function isLive(s: InstanceStatus): boolean {
  return s !== 'terminating' && s !== 'terminated';
}

/** The refusal of a call about another account than the credentials' own (AWS), worded for the cluster view. */
export function accountMismatch(cloud: string, noun: string, current: string, recorded: string, hint: string): ProviderError {
  return new ProviderError('auth', `unknown — credentials point at ${cloud} ${noun} ${current}, the cluster lives in ${recorded}`, hint);
}

export function tagsFor(req: { clusterName: string; uid: string; workspaceId: string }): Record<string, string> {
  return { [TAG_CLUSTER]: req.clusterName, [TAG_UID]: req.uid, [TAG_WORKSPACE]: req.workspaceId };
}
