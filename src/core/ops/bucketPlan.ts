// Which bucket mounts a task has and how each node will authenticate to its store, decided on
// this machine before anything is provisioned or queued: a launch that could not read its
// buckets fails before it costs anything.
//
// A node reading its own cloud's store uses the VM's identity: on AWS the per-cluster instance
// profile Skydeck creates, allowed only the task's buckets (clouds/aws/bucketRole.ts); on GCP
// and Azure its service account or managed identity, which must have access (scoping those to
// the task's buckets is not built yet). Everything else (ssh pools, local, another cloud's VM,
// R2) has no identity for the store: the user's own keys go to the node only with the explicit
// opt-in, and without it the launch stops before provisioning.
import { loadAws } from '../clouds/aws/load';
import type { Task } from '../task';
import { mountLabel, targetOf, type NodeMount, type StoreAccess, type StoreKind } from '../storage';
import type { OpsContext } from './context';
import { OpsError } from './errors';

export interface PlannedMount {
  mount: NodeMount;
  access: StoreAccess;
  /** Set when the user's own credentials go to the node, e.g. "AWS". */
  shared?: string;
}

export const SHARE_SETTING = 'skydeck.storage.shareCredentials';
export const SHARE_HOW = `set ${SHARE_SETTING} to true in your user settings (CLI: --share-credentials or SKYDECK_SHARE_CREDENTIALS=1)`;

const HOME_CLOUD: Record<StoreKind, string | undefined> = { s3: 'aws', gcs: 'gcp', azure: 'azure', r2: undefined };
/** Clouds whose nodes Skydeck launches with an identity a store can be read with. */
const VM_IDENTITY = new Set(['aws', 'gcp', 'azure']);
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
  let keys: Promise<StoreAccess['credentials']> | undefined;
  const out: PlannedMount[] = [];
  for (const mount of bucketMountsOf(task)) {
    const label = mountLabel(mount.dst, mount.target);
    const store = mount.target.store;
    if (HOME_CLOUD[store] === cloud && VM_IDENTITY.has(cloud)) {
      out.push({ mount, access: { credentials: { kind: 'vm' }, ...override } });
      continue;
    }
    const where = cloud === 'ssh' ? 'an ssh pool host' : cloud === 'local' ? 'this machine\'s local cluster'
      : cloud === 'aws' ? 'an AWS node' : `a ${cloud} node`;
    if (ctx.storageCredentials !== 'share') {
      throw new OpsError('usage', `file_mounts ${label}: ${where} has no identity of its own to read ${STORE_NAME[store]} with, and Skydeck copies your credentials to a node only if you opt in: ${SHARE_HOW}`);
    }
    if (store !== 's3') {
      throw new OpsError('unavailable', `file_mounts ${label}: sharing your credentials is implemented for S3 buckets only; on ${where} use an S3 bucket, or run the task on ${HOME_CLOUD[store] ?? 'a cloud'}`);
    }
    keys ??= awsKeys();
    const credentials = await keys.catch((e: Error) => {
      throw new OpsError('failed', `file_mounts ${label}: could not find your AWS credentials to share (${e.message}); configure them as for the aws CLI (aws configure, or AWS_PROFILE)`);
    });
    out.push({ mount, access: { credentials, ...override }, shared: 'AWS' });
  }
  return out;
}

async function awsKeys(): Promise<StoreAccess['credentials']> {
  return { kind: 'keys', ...(await loadAws().resolveAwsKeys()) };
}
