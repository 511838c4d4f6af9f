import type { TaggedListing, UnlistedPart } from '../provider';
import { TAG_UID } from '../provider';
import { boundedMap } from '../boundedMap';
import type { Ec2Clients } from './clients';
import { describeInstances } from './describe';
import { toProviderError } from './errors';
import { infoOf } from './status';
import { listBucketRoles } from './bucketRoleList';
import { listControllerBoundaries } from './controllerBoundary';

const LIVE_STATES = ['pending', 'running', 'stopping', 'stopped', 'shutting-down'];

/**
 * Every live Skydeck-tagged instance in `regions`, listed in parallel, and Skydeck's bucket
 * roles and controllers' job-role boundaries (IAM is global: one more part). A part that fails is named as unlisted: its strays
 * are unknown, not absent.
 */
export async function listAccount(clients: Ec2Clients, regions: string[], concurrency: number): Promise<Omit<TaggedListing, 'account'>> {
  const filters = [{ Name: 'tag-key', Values: [TAG_UID] }, { Name: 'instance-state-name', Values: LIVE_STATES }];
  const per = await boundedMap(regions, concurrency, async (region) => {
    try {
      return { region, list: (await describeInstances(clients.get(region), filters)).map((i) => infoOf(i, region)) };
    } catch (e) {
      const pe = toProviderError(e, 'DescribeInstances');
      return { region, failed: { region, kind: pe.kind, message: pe.message } satisfies UnlistedPart };
    }
  });
  const unlisted = per.flatMap((r) => (r.failed ? [r.failed] : []));
  const iam = clients.iam();
  const identities = await Promise.all([listBucketRoles(iam), listControllerBoundaries(iam)]).then((l) => l.flat()).catch((e: unknown) => {
    const pe = toProviderError(e, 'iam:ListRoles');
    unlisted.push({ region: 'IAM', kind: pe.kind, message: pe.message });
    return undefined;
  });
  return {
    instances: per.flatMap((r) => r.list ?? []),
    listed: per.filter((r) => r.list).map((r) => r.region),
    unlisted, ...(identities ? { identities } : {}),
  };
}
