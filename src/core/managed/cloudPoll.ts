// The controller's look at its running clusters: one tagged listing per cloud and account per
// poll (the provider lists each region once), shared by every job that polls meanwhile,
// instead of one query per job per poll. A listing only ever says "still healthy": anything
// else (missing, not running, a region not listed, an error) sends the job to a fresh look at
// its own uid (refreshOne, with the leak rules), which decides.
import { TAG_UID, type InstanceInfo, type TaggedListing } from '../clouds/provider';
import type { ClusterRecord } from '../state';
import type { Clock } from '../provision';
import type { OpsContext } from '../ops';
import { providerOf } from '../ops/providerEnv';

interface Listing {
  at: number;
  answer: Promise<TaggedListing | undefined>;
}

export class CloudPoll {
  private readonly listings = new Map<string, Listing>();

  /** `maxAgeMs`: a listing younger than this is reused (about one poll interval). */
  constructor(private readonly ctx: OpsContext, private readonly clock: Clock, private readonly maxAgeMs: number) {}

  /** The row's instances per a recent listing of its cloud and account; undefined when that listing does not vouch for it. */
  async instancesOf(row: ClusterRecord): Promise<InstanceInfo[] | undefined> {
    const l = await this.listing(row.provider, row.account);
    if (!l || l.unlisted.some((u) => !u.region || u.region === row.region)) return undefined;
    return l.instances.filter((i) => i.tags[TAG_UID] === row.uid);
  }

  private listing(cloud: string, account: string | null): Promise<TaggedListing | undefined> {
    const key = `${cloud}\u0000${account ?? ''}`;
    const now = this.clock.now();
    const cur = this.listings.get(key);
    if (cur && now - cur.at < this.maxAgeMs) return cur.answer;
    const provider = providerOf(this.ctx, cloud);
    const answer = provider ? provider.listTagged(account ?? undefined).catch(() => undefined) : Promise.resolve(undefined);
    this.listings.set(key, { at: now, answer });
    return answer;
  }
}
