// A managed job's S3 buckets are touched by the controller VM itself before its cluster reads
// them (a bucket's region is looked up where the launch runs, a named bucket's local source is
// uploaded from the copy there), so the VM's own instance profile is widened to exactly those
// buckets when such a job is submitted. The grant is made from this machine, with the user's
// credentials: the controller's policy denies it every IAM action on its own role, so it never
// widens itself. It is the union a reused cluster gets (ops/bucketGrant.ts): recorded on the
// controller's row first and deleted with the role at its down. It grants what a node of a task
// gets (list, read and write objects, the bucket's location), not creating or deleting buckets.
import type { BucketAccess } from '../../clouds/provider';
import { parseTaskText } from '../../task';
import { grantBucketAccess } from '../../ops/bucketGrant';
import type { OpsContext } from '../../ops';
import type { ClusterRecord } from '../../state';

/** The S3 buckets (and prefixes) the job's tasks mount, by URL or by name. */
export function s3AccessOf(tasks: string[], envs: Record<string, string>): BucketAccess[] {
  const out = new Map<string, BucketAccess>();
  for (const text of tasks) {
    const p = parseTaskText(text, 'task', { env: envs });
    if (!p.ok || p.tasks.length !== 1) continue;
    for (const m of Object.values(p.tasks[0].fileMounts)) {
      if (m.kind !== 'bucket' || m.mount.store !== 's3') continue;
      const a: BucketAccess = m.mount.kind === 'url'
        ? { store: 's3', bucket: m.mount.bucket, ...(m.mount.prefix ? { prefix: m.mount.prefix } : {}) }
        : { store: 's3', bucket: m.mount.name };
      out.set(`${a.bucket}/${a.prefix ?? ''}`, a);
    }
  }
  return [...out.values()];
}

/** On an AWS controller cluster: its role allows the job's S3 buckets too. */
export async function grantControllerBuckets(ctx: OpsContext, row: ClusterRecord, tasks: string[], envs: Record<string, string>): Promise<void> {
  if (row.provider !== 'aws') return;
  const access = s3AccessOf(tasks, envs);
  if (access.length) await grantBucketAccess(ctx, row, access);
}
