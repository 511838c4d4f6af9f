import {
  AuthorizeSecurityGroupIngressCommand, CreateSecurityGroupCommand, DeleteSecurityGroupCommand,
  DescribeSecurityGroupsCommand, type EC2Client, type IpPermission,
} from '@aws-sdk/client-ec2';
import type { PortRange } from '../../task';
import { awsErrorCode, ec2Call } from './errors';
import { hasUidTag, uidFilter } from './uidMatch';

const ANYWHERE = [{ CidrIp: '0.0.0.0/0', Description: 'skydeck' }];

function tcp(from: number, to: number): IpPermission {
  return { IpProtocol: 'tcp', FromPort: from, ToPort: to, IpRanges: ANYWHERE };
}

/** The cluster's security groups, found by uid tag (so a crash between create and record loses nothing). */
export async function groupsOf(ec2: EC2Client, uid: string): Promise<string[]> {
  return ec2Call('DescribeSecurityGroups', async () => {
    const r = await ec2.send(new DescribeSecurityGroupsCommand({ Filters: uidFilter(uid) }));
    return (r.SecurityGroups ?? []).filter((g) => hasUidTag(g.Tags, uid)).map((g) => g.GroupId!).filter(Boolean);
  });
}

/**
 * One security group per cluster: SSH from anywhere (the extension connects from the user's
 * laptop, whose address we do not know) and all traffic between the cluster's own nodes.
 */
export async function ensureGroup(ec2: EC2Client, clusterName: string, uid: string, tags: Record<string, string>): Promise<string> {
  const existing = await groupsOf(ec2, uid);
  if (existing.length) return existing[0];
  const name = `skydeck-${clusterName.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 60)}-${uid.slice(0, 8)}`;
  const id = await ec2Call('CreateSecurityGroup', async () => {
    const r = await ec2.send(new CreateSecurityGroupCommand({
      GroupName: name, Description: `Skydeck cluster ${clusterName}`,
      TagSpecifications: [{ ResourceType: 'security-group', Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) }],
    }));
    return r.GroupId!;
  });
  await authorize(ec2, id, [tcp(22, 22), { IpProtocol: '-1', UserIdGroupPairs: [{ GroupId: id }] }]);
  return id;
}

/** Opens the task's ports (TCP, from anywhere) on the cluster's group; already-open ones are fine. */
export async function openGroupPorts(ec2: EC2Client, groupId: string, ports: PortRange[]): Promise<void> {
  // One rule per call: a single duplicate would otherwise reject the whole batch.
  for (const p of ports) await authorize(ec2, groupId, [tcp(p.from, p.to)]);
}

async function authorize(ec2: EC2Client, groupId: string, perms: IpPermission[]): Promise<void> {
  await ec2Call('AuthorizeSecurityGroupIngress', async () => {
    try {
      await ec2.send(new AuthorizeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: perms }));
    } catch (e) {
      if (awsErrorCode(e) !== 'InvalidPermission.Duplicate') throw e;
    }
  });
}

/** Deletes a group; false while instances still use it (DependencyViolation), true when gone. */
export async function deleteGroup(ec2: EC2Client, groupId: string): Promise<boolean> {
  return ec2Call('DeleteSecurityGroup', async () => {
    try {
      await ec2.send(new DeleteSecurityGroupCommand({ GroupId: groupId }));
      return true;
    } catch (e) {
      const code = awsErrorCode(e);
      if (code === 'InvalidGroup.NotFound') return true;
      if (code === 'DependencyViolation') return false;
      throw e;
    }
  });
}
