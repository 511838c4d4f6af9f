// Which bucket mounts a task has and how each node will authenticate to its store, decided on
// this machine before anything is provisioned or queued: a launch that could not read its
// buckets fails before it costs anything.
//
// A node of a cloud in VM_IDENTITY reading its own cloud's store uses the VM's identity: on AWS
// the per-cluster instance profile Skydeck creates, allowed only the task's buckets
// (clouds/aws/bucketRole.ts); on GCP the per-cluster service account every node runs as,
// granted objectAdmin on each of the task's GCS buckets only (clouds/gcp/bucketIdentity.ts); on
// Azure the per-cluster user-assigned managed identity with Storage Blob Data Contributor on
// exactly the task's containers (clouds/azure/bucketIdentity.ts). Every other node (ssh pools,
// local, any R2 bucket, another cloud's store) has none for the store: the user's own
// credentials go to the node only with the explicit opt-in (sharedCredentials.ts), and without
// it the launch stops before provisioning.
import type { Task } from '../task';
import { mountLabel, targetOf, type NodeMount, type StoreKind } from '../storage';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { sharedCredentials, type Shared } from './sharedCredentials';
import type { ClusterRecord } from '../state';
import { refOf } from '../provision/handle';
import { providerOf } from './providerEnv';
import { lookUpS3Regions } from './s3Regions';
import type { PlannedMount } from './plannedMount';

export type { PlannedMount } from './plannedMount';

export const SHARE_SETTING = 'skydeck.storage.shareCredentials';
export const SHARE_HOW = `set ${SHARE_SETTING} to true in your user settings (CLI: --share-credentials or SKYDECK_SHARE_CREDENTIALS=1)`;

const HOME_CLOUD: Record<StoreKind, string | undefined> = { s3: 'aws', gcs: 'gcp', azure: 'azure', r2: undefined };
/**
 * Clouds whose nodes Skydeck launches with an identity their own store can be read with: AWS
 * (the per-cluster instance profile), GCP (the per-cluster service account with the
 * devstorage.read_write scope) and Azure (the per-cluster managed identity).
 */
export const VM_IDENTITY = new Set<string>(['aws', 'gcp', 'azure']);

const NODE_OF: Record<string, string> = {
  ssh: 'an ssh pool host', local: 'this machine\'s local cluster', aws: 'an AWS node', gcp: 'a GCP node', azure: 'an Azure node',
};
const STORE_NAME: Record<StoreKind, string> = { s3: 'S3', gcs: 'GCS', azure: 'Azure Blob', r2: 'R2' };

/** The task's bucket mounts, parents before children (a mount inside another comes after it). */
export function bucketMountsOf(task: Task): NodeMount[] {
  const out: NodeMount[] = [];
  for (const [dst, m] of Object.entries(task.fileMounts)) {
    if (m.kind === 'bucket') out.push({ dst, target: targetOf(m.mount, process.env.AZURE_STORAGE_ACCOUNT), mode: m.mount.mode, ...(m.mount.tuning ? { tuning: m.mount.tuning } : {}) });
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
    const where = NODE_OF[cloud] ?? `a ${cloud} node`;
    if (ctx.storageCredentials !== 'share') {
      throw new OpsError('usage', `file_mounts ${label}: ${where} has no identity of its own to read ${STORE_NAME[store]} with, and Skydeck copies your credentials to a node only if you opt in: ${SHARE_HOW}`);
    }
    if (!shared.has(store)) shared.set(store, sharedCredentials(store, label, where, { cloudflareDir: ctx.cloudflareDir }));
    const s = await shared.get(store)!;
    out.push({ mount, access: { credentials: s.credentials, ...(s.r2AccountId ? { r2AccountId: s.r2AccountId } : {}), ...override }, shared: s.what });
  }
  await lookUpS3Regions(ctx, out);
  return out;
}

/**
 * The plan for a cluster's nodes once the cluster is known: where a node may hold several
 * identities (an Azure head with autostop has its own too), the VM credential names the one
 * its cloud made for the buckets (Provider.bucketIdentity).
 */
export function forCluster(ctx: OpsContext, plan: PlannedMount[], row: ClusterRecord): PlannedMount[] {
  const vm = plan.filter((p) => p.access.credentials.kind === 'vm' && p.mount.target.store === 'azure');
  const id = vm.length ? providerOf(ctx, row.provider)?.bucketIdentity?.(refOf(row)) : undefined;
  if (!id) return plan;
  return plan.map((p) => (vm.includes(p) ? { ...p, access: { ...p.access, credentials: { kind: 'vm', azureMsiResourceId: id } } } : p));
}
