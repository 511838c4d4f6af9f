// The per-cluster identities (AWS bucket role + instance profile) at down and in the leak
// sweep: deleted where the user waits, and reported with the call that proved each gone. What
// cannot be deleted now is said, and stays visible to "skydeck leaks" (no row owns it any more).
import { listClusters } from '../state';
import { isLive, TAG_UID } from '../clouds/provider';
import type { IdentityRelease } from '../clouds/clusterIdentity';
import type { LeakedIdentity } from '../provision';
import { refOf } from '../provision/handle';
import type { ClusterRecord } from '../state';
import type { OpsContext } from './context';
import { providerOf } from './providerEnv';

/** Default wait for EC2 to move a cluster's instances from shutting-down to terminated. */
const RELEASE_MS = 10 * 60_000;
const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

function describe(r: IdentityRelease, leftHow: string): string[] {
  return [
    ...r.gone.map((g) => `deleted ${g.kind} ${g.name} (proof: ${g.proof})`),
    ...r.left.map((l) => `${l.kind} ${l.name} is left: ${l.why}; ${leftHow}`),
  ];
}

/** After a down proved the instances ending: waits for their identities to go, with progress; notes for the down. */
export async function releaseClusterIdentities(ctx: OpsContext, row: ClusterRecord): Promise<string[]> {
  const provider = providerOf(ctx, row.provider);
  if (!provider?.releaseIdentities) return [];
  const leftHow = '"skydeck leaks" lists it and deletes it once its instances are terminated';
  try {
    const r = await provider.releaseIdentities(refOf(row), { timeoutMs: ctx.identityReleaseMs ?? RELEASE_MS, progress: (m) => ctx.progress(m) });
    const notes = describe(r, leftHow);
    for (const l of r.left) ctx.warn(`${row.name}: ${l.kind} ${l.name} is left: ${l.why}; ${leftHow}`);
    return notes;
  } catch (e) {
    const msg = `${row.name}'s cluster identities could not be checked or deleted (${errText(e)}); ${leftHow}`;
    ctx.warn(msg);
    return [msg];
  }
}

/**
 * Deletes the identity of a cluster no row owns, with proof. Refused while the cluster might
 * still use it: a row owns the uid again, an instance of the uid is not terminated yet, or a
 * region could not be listed (then whether one lives is unknown).
 */
export async function deleteStrayIdentity(ctx: OpsContext, id: LeakedIdentity): Promise<{ deleted: boolean; message: string }> {
  const what = `${id.kind} ${id.name}`;
  const owned = await ctx.store.read((db) => listClusters(db).some((c) => c.uid === id.uid));
  if (owned) return { deleted: false, message: `${what} belongs to cluster ${id.cluster} now; down the cluster instead` };
  const provider = providerOf(ctx, id.cloud);
  if (!provider?.deleteIdentities) return { deleted: false, message: `deleting ${id.cloud} identities is not available` };
  try {
    const listing = await provider.listTagged(id.account);
    if (listing.unlisted.length) {
      return { deleted: false, message: `${what} kept: ${listing.unlisted.map((u) => u.region ?? 'the account').join(', ')} could not be listed, so whether an instance of cluster ${id.cluster} still uses it is unknown` };
    }
    const live = listing.instances.filter((i) => i.tags[TAG_UID] === id.uid && (isLive(i.status) || i.status === 'terminating'));
    if (live.length) {
      return { deleted: false, message: `${what} kept: instance(s) ${live.map((i) => `${i.id} (${i.status})`).join(', ')} of cluster ${id.cluster} still hold it; terminate them first (skydeck leaks --terminate ID -y)` };
    }
    const r = await provider.deleteIdentities({ uid: id.uid, ...(id.account ? { account: id.account } : {}) });
    const lines = describe(r, 'delete it in the IAM console');
    if (!r.gone.length && !r.left.length) return { deleted: true, message: `${what} was already gone` };
    return { deleted: !r.left.length, message: lines.join('; ') };
  } catch (e) {
    return { deleted: false, message: `deleting ${what} failed: ${errText(e)}` };
  }
}
