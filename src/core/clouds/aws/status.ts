import type { Instance } from '@aws-sdk/client-ec2';
import type { InstanceInfo, InstanceStatus } from '../provider';
import { awsShippedPrice } from '../../catalog/awsShipped';

/** Tag marking the head node (set after creation, as all nodes are created in one call). */
export const TAG_HEAD = 'skydeck-head';

const STATUS: Record<string, InstanceStatus> = {
  pending: 'pending', running: 'running', stopping: 'stopping', stopped: 'stopped',
  'shutting-down': 'terminating', terminated: 'terminated',
};

/** EC2 state name → Skydeck status; an unknown state is treated as pending (alive, not ready). */
export function statusOf(state: string | undefined): InstanceStatus {
  return (state && STATUS[state]) || 'pending';
}

export function tagsOf(i: Instance): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of i.Tags ?? []) if (t.Key) out[t.Key] = t.Value ?? '';
  return out;
}

export function infoOf(i: Instance, region: string): InstanceInfo {
  const info: InstanceInfo = {
    id: i.InstanceId ?? '?',
    status: statusOf(i.State?.Name),
    region,
    launchedAt: i.LaunchTime ? new Date(i.LaunchTime).getTime() : 0,
    tags: tagsOf(i),
  };
  if (i.Placement?.AvailabilityZone) info.zone = i.Placement.AvailabilityZone;
  if (i.InstanceType) info.instanceType = i.InstanceType;
  const price = awsShippedPrice(i.InstanceType);
  if (price !== undefined) info.costPerHour = price;
  if (i.PublicIpAddress) info.publicIp = i.PublicIpAddress;
  if (i.PrivateIpAddress) info.privateIp = i.PrivateIpAddress;
  return info;
}

/** The head: the instance tagged as head if any, else the oldest (then lowest launch index). */
export function pickHead(live: { info: InstanceInfo; index: number }[]): InstanceInfo | undefined {
  const tagged = live.find((x) => x.info.tags[TAG_HEAD] === 'true');
  if (tagged) return tagged.info;
  return [...live].sort((a, b) => a.info.launchedAt - b.info.launchedAt || a.index - b.index || a.info.id.localeCompare(b.info.id))[0]?.info;
}
