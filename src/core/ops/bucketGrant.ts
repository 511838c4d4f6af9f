// A cluster reused by launch or exec may be handed buckets its nodes' own identity was not
// made for (AWS: the bucket role; GCP: the service account; Azure: the managed identity).
// Before anything is mounted, the cloud widens that identity to the union; a cluster whose
// nodes have none is refused with the fix.
import { getCluster, putCluster, type ClusterRecord } from '../state';
import { isProviderError, type BucketAccess } from '../clouds/provider';
import { providerHandle, refOf } from '../provision/handle';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { isProviderCluster, providerOf } from './providerEnv';
import type { PlannedMount } from './bucketPlan';

/**
 * Makes the cluster's identity allow every bucket the plan reads with it (credentials 'vm').
 * A grant that changed something marks those mounts: the cloud applies it within seconds,
 * and until then the node may still be refused (bucketAttach.ts retries a refusal a while).
 */
export async function grantPlannedBuckets(ctx: OpsContext, row: ClusterRecord, plan: PlannedMount[]): Promise<void> {
  const viaVm = plan.filter((p) => p.access.credentials.kind === 'vm');
  const access: BucketAccess[] = viaVm.map(({ mount: { target: t } }) => ({
    store: t.store, bucket: t.bucket, ...(t.prefix ? { prefix: t.prefix } : {}), ...(t.account ? { account: t.account } : {}),
  }));
  if (await grantBucketAccess(ctx, row, access)) for (const p of viaVm) p.justGranted = true;
}

/**
 * Makes the cluster's own identity allow `access` too (the union), recorded on the row first;
 * true when the cloud changed something. A cluster whose cloud grants nothing: false.
 */
export async function grantBucketAccess(ctx: OpsContext, row: ClusterRecord, access: BucketAccess[]): Promise<boolean> {
  const provider = isProviderCluster(row) ? providerOf(ctx, row.provider) : undefined;
  if (!access.length || !provider?.grantBuckets) return false;
  const ref = refOf(row);
  const failed = (e: unknown) => {
    if (!isProviderError(e)) return e;
    const hint = e.hint ? `: ${e.hint} ("skydeck down ${row.name}", then launch again)` : '';
    return new OpsError(e.kind === 'config' ? 'usage' : 'failed', `file_mounts on cluster ${row.name}: ${e.message}${hint}`);
  };
  // A grant refused before anything changes is not recorded: the row's buckets are what the
  // cluster is started again with, and one the cloud cannot grant would stop every start.
  await provider.checkBuckets?.(ref, access).catch((e: unknown) => { throw failed(e); });
  // Intent first: the row names every bucket before the cloud grants it, so the down that
  // revokes the grants bucket by bucket (GCP) finds this one even if we are killed mid-grant.
  await recordBuckets(ctx, row, access);
  let grant;
  try {
    grant = await provider.grantBuckets(ref, access);
  } catch (e) {
    throw failed(e);
  }
  if (!grant.changed) return false;
  ctx.progress(`Allowed ${grant.identity} of ${row.name} the task's buckets too (${[...new Set(access.map((a) => `${a.store}://${a.bucket}`))].join(', ')})`);
  return true;
}

/** Adds `access` to the buckets recorded with the row's placement (only while the row is still this uid's). */
async function recordBuckets(ctx: OpsContext, row: ClusterRecord, access: BucketAccess[]): Promise<void> {
  const key = (a: BucketAccess) => `${a.store}:${a.account ?? ''}:${a.bucket}/${a.prefix ?? ''}${a.manage ? ' manage' : ''}`;
  await ctx.store.write((db) => {
    const cur = getCluster(db, row.name);
    if (!cur || cur.uid !== row.uid) return;
    const h = providerHandle(cur);
    const had = h.placement.bucketAccess ?? [];
    const seen = new Set(had.map(key));
    const added = access.filter((a) => !seen.has(key(a)) && seen.add(key(a)));
    if (!added.length) return;
    putCluster(db, { ...cur, handle: JSON.stringify({ ...h, placement: { ...h.placement, bucketAccess: [...had, ...added] } }) });
  });
}
