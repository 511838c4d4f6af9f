// Which bucket mounts a task has and how each node will authenticate to its store, decided on
// this machine before anything is provisioned or queued: a launch that could not read its
// buckets fails before it costs anything.
//
// A node of a cloud in VM_IDENTITY reading its own cloud's store uses the VM's identity: on AWS
// the per-cluster instance profile Skydeck creates, allowed only the task's buckets
// (clouds/aws/bucketRole.ts). Every other node (ssh pools, local, GCP and Azure nodes, which get
// no identity with bucket access from Skydeck yet, any R2 bucket) has none for the store: the
// user's own credentials go to the node only with the explicit opt-in (sharedCredentials.ts),
// and without it the launch stops before provisioning.
import type { Task } from '../task';
import { mountLabel, targetOf, type NodeMount, type StoreAccess, type StoreKind } from '../storage';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { sharedCredentials, type Shared } from './sharedCredentials';
import { lookUpS3Regions } from './s3Regions';

export interface PlannedMount {
  mount: NodeMount;
  access: StoreAccess;
  /** Set when the user's own credentials go to the node, e.g. "AWS". */
  shared?: string;
  /** S3: the bucket did not exist when its region was looked up (s3Regions.ts); ask again once it does. */
  regionPending?: boolean;
  /** The node's identity was just widened to this bucket (bucketGrant.ts): a refusal may be IAM catching up. */
  justGranted?: boolean;
}

export const SHARE_SETTING = 'skydeck.storage.shareCredentials';
export const SHARE_HOW = `set ${SHARE_SETTING} to true in your user settings (CLI: --share-credentials or SKYDECK_SHARE_CREDENTIALS=1)`;

const HOME_CLOUD: Record<StoreKind, string | undefined> = { s3: 'aws', gcs: 'gcp', azure: 'azure', r2: undefined };
/**
 * Clouds whose nodes Skydeck launches with an identity their own store can be read with: AWS
 * (the per-cluster instance profile). Not yet GCP (nodes get a service account only as an
 * autodown head, with compute rights only) or Azure (a managed identity only for autostop):
 * there a bucket needs the credentials opt-in, refused before anything bills.
 */
const VM_IDENTITY = new Set<string>(['aws']);

const NODE_OF: Record<string, string> = {
  ssh: 'an ssh pool host', local: 'this machine\'s local cluster', aws: 'an AWS node', gcp: 'a GCP node', azure: 'an Azure node',
};
const CLOUD_NAME: Record<string, string> = { aws: 'AWS', gcp: 'GCP', azure: 'Azure' };
const STORE_NAME: Record<StoreKind, string> = { s3: 'S3', gcs: 'GCS', azure: 'Azure Blob', r2: 'R2' };

/** The task's bucket mounts, parents before children (a mount inside another comes after it). */
export function bucketMountsOf(task: Task): NodeMount[] {
  const out: NodeMount[] = [];
  for (const [dst, m] of Object.entries(task.fileMounts)) {
    if (m.kind === 'bucket') out.push({ dst, target: targetOf(m.mount, process.env.AZURE_STORAGE_ACCOUNT), mode: m.mount.mode });
  }
  return out.sort((a, b) => a.dst.length - b.dst.length || a.dst.localeCompare(b.dst));
}

export async function planBuckets(ctx: OpsContext, task: Task, cloud: string): Promise<PlannedMount[]> {
  const override = ctx.storageAccess ?? {};
  const shared = new Map<StoreKind, Promise<Shared>>();
  const out: PlannedMount[] = [];
  for (const mount of bucketMountsOf(task)) {
    const label = mountLabel(mount.dst, mount.target);
    const store = mount.target.store;
    if (HOME_CLOUD[store] === cloud && VM_IDENTITY.has(cloud)) {
      out.push({ mount, access: { credentials: { kind: 'vm' }, ...override } });
      continue;
    }
    const node = NODE_OF[cloud] ?? `a ${cloud} node`;
    const where = HOME_CLOUD[store] === cloud ? `${node} (Skydeck does not yet give ${CLOUD_NAME[cloud] ?? cloud} nodes an identity with access to buckets)` : node;
    if (ctx.storageCredentials !== 'share') {
      throw new OpsError('usage', `file_mounts ${label}: ${where} has no identity of its own to read ${STORE_NAME[store]} with, and Skydeck copies your credentials to a node only if you opt in: ${SHARE_HOW}`);
    }
    if (!shared.has(store)) shared.set(store, sharedCredentials(store, label, where));
    const s = await shared.get(store)!;
    out.push({ mount, access: { credentials: s.credentials, ...override }, shared: s.what });
  }
  await lookUpS3Regions(ctx, out);
  return out;
}
