import { DescribeInstancesCommand, TerminateInstancesCommand, type EC2Client, type Instance } from '@aws-sdk/client-ec2';
import { awsErrorCode, ec2Call } from './errors';
import { hasUidTag } from './uidMatch';

/**
 * Terminates, by id, instances a run call returned that the uid's tag-filtered listing does
 * not show yet (EC2 answers are eventually consistent), one id per call: an id EC2 does not
 * know yet fails the whole request. Only an instance EC2 describes with the uid's tag is
 * touched (a row's ids alone are no warrant). Returns the ids EC2's TerminateInstances
 * answered with shutting-down or terminated; InvalidInstanceID.NotFound proves nothing here,
 * as EC2 answers that during the same lag.
 */
export async function terminateUnlisted(ec2: EC2Client, uid: string, ids: string[]): Promise<string[]> {
  const ending: string[] = [];
  for (const id of ids) {
    const described = await byId(ec2, id);
    if (!described || !hasUidTag(described.Tags, uid)) continue;
    await ec2Call('TerminateInstances', async () => {
      try {
        const out = await ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
        // TerminatingInstances[].InstanceId / CurrentState.Name (EC2 API reference, TerminateInstances).
        const mine = (out.TerminatingInstances ?? []).find((c) => c.InstanceId === id);
        if (mine?.CurrentState?.Name === 'shutting-down' || mine?.CurrentState?.Name === 'terminated') ending.push(id);
      } catch (e) {
        if (awsErrorCode(e) !== 'InvalidInstanceID.NotFound') throw e;
      }
    });
  }
  return ending;
}

/** DescribeInstances by id; undefined when EC2 does not know it (yet). */
function byId(ec2: EC2Client, id: string): Promise<Instance | undefined> {
  return ec2Call('DescribeInstances', async () => {
    try {
      const out = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
      return (out.Reservations ?? []).flatMap((r) => r.Instances ?? []).find((i) => i.InstanceId === id);
    } catch (e) {
      if (awsErrorCode(e) === 'InvalidInstanceID.NotFound') return undefined;
      throw e;
    }
  });
}
