import type { EC2Client, Filter, Instance, Tag } from '@aws-sdk/client-ec2';
import { TAG_UID } from '../provider';
import { describeInstances } from './describe';

/**
 * An EC2 filter value matching `value` literally: filter values treat * and ? as wildcards
 * (and \ as their escape), so a uid of "*" would otherwise match every tagged instance.
 */
export function literalFilterValue(value: string): string {
  return value.replace(/[\\*?]/g, (c) => `\\${c}`);
}

export function uidFilter(uid: string): Filter[] {
  return [{ Name: `tag:${TAG_UID}`, Values: [literalFilterValue(uid)] }];
}

export function hasUidTag(tags: Tag[] | undefined, uid: string): boolean {
  return (tags ?? []).some((t) => t.Key === TAG_UID && t.Value === uid);
}

/**
 * The uid's instances, each confirmed by its tag value exactly (not only by the filter):
 * this list is what stop and terminate act on.
 */
export async function instancesOfUid(ec2: EC2Client, uid: string): Promise<Instance[]> {
  return (await describeInstances(ec2, uidFilter(uid))).filter((i) => hasUidTag(i.Tags, uid));
}
