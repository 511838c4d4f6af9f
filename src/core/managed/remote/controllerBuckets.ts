// A managed job's buckets are touched by the controller VM itself before its cluster reads them
// (a bucket's region is looked up where the launch runs, a named bucket's local source is
// uploaded from the copy there), so the VM's own identity is widened to exactly the buckets of
// its cloud's store when such a job is submitted (AWS: S3 on its role; GCP: GCS on its service
// account, and on the jobs account its job clusters run as, clouds/gcp/jobsAccount.ts; Azure:
// Blob containers on its managed identity, and on its jobs identity, which the job clusters it
// launches carry: azure/bucketGrant.ts). The grant is made from this
// machine, with the user's credentials: the controller's own identity may not change itself.
// It is the union a reused cluster gets (ops/bucketGrant.ts): recorded on the controller's row
// first and revoked with its identity at its down. It grants what a node of a task gets (list,
// read and write objects, the bucket's location); on AWS, a bucket named by `name:` may also
// be created, tagged and deleted (it is the controller that makes it for the job and ends it).
// GCS and Azure grants sit on the bucket itself, so there a named bucket must exist already. An
// Azure container given by `name:` is in the storage account of AZURE_STORAGE_ACCOUNT, read here
// as a launch reads it (ops/bucketPlan.ts) and handed to the VM with the same value
// (AzureProvider.controllerNodeEnv); it is checked to exist before anything is granted or
// recorded (azure/bucketGrant.ts checkNamedContainers). The Azure controller VM makes no role
// assignment at all (azure/controllerRole.ts): what its job clusters mount is granted here.
import type { BucketAccess } from '../../clouds/provider';
import type { StoreKind } from '../../storage/types';
import { parseTaskText } from '../../task';
import { grantBucketAccess } from '../../ops/bucketGrant';
import { OpsError, type OpsContext } from '../../ops';
import type { ClusterRecord } from '../../state';

/** The store a controller on each cloud reaches with its own identity. */
const STORE_OF: Record<string, StoreKind> = { aws: 's3', gcp: 'gcs', azure: 'azure' };

/**
 * The `store` buckets (and prefixes) the job's tasks mount, by URL or by name. An Azure
 * container given by name is in `azureAccount` (a launch's: AZURE_STORAGE_ACCOUNT), and must
 * exist; without an account it is refused (nothing could be granted, and the VM may grant nothing).
 */
export function bucketAccessOf(store: StoreKind, tasks: string[], envs: Record<string, string>, azureAccount = process.env.AZURE_STORAGE_ACCOUNT): BucketAccess[] {
  const out = new Map<string, BucketAccess>();
  for (const text of tasks) {
    const p = parseTaskText(text, 'task', { env: envs });
    if (!p.ok || p.tasks.length !== 1) continue;
    for (const m of Object.values(p.tasks[0].fileMounts)) {
      if (m.kind !== 'bucket' || m.mount.store !== store) continue;
      let a: BucketAccess;
      if (m.mount.kind === 'url') {
        const account = 'account' in m.mount && m.mount.account ? { account: m.mount.account } : {};
        a = { store, bucket: m.mount.bucket, ...(m.mount.prefix ? { prefix: m.mount.prefix } : {}), ...account };
      } else if (store === 's3') {
        // Named: the controller makes it if missing and ends it with the job (MANAGE_ACTIONS).
        a = { store, bucket: m.mount.name, manage: true };
      } else if (store === 'gcs') {
        a = { store, bucket: m.mount.name };
      } else if (store === 'azure') {
        if (!azureAccount) {
          throw new OpsError('usage', `managed job: Azure container ${m.mount.name} is given by name, and no storage account is known for it on this machine: `
            + 'set AZURE_STORAGE_ACCOUNT to the account that holds it (the controller is given the same), or give its URL (https://<account>.blob.core.windows.net/<container>)');
        }
        a = { store, bucket: m.mount.name, account: azureAccount, mustExist: true };
      } else continue;
      out.set(`${a.account ?? ''}/${a.bucket}/${a.prefix ?? ''}`, a);
    }
  }
  return [...out.values()];
}

/** On a cloud controller cluster: its identity allows the job's buckets of its cloud too. */
export async function grantControllerBuckets(ctx: OpsContext, row: ClusterRecord, tasks: string[], envs: Record<string, string>): Promise<void> {
  const store = STORE_OF[row.provider];
  if (!store) return;
  const access = bucketAccessOf(store, tasks, envs);
  if (access.length) await grantBucketAccess(ctx, row, access);
}
