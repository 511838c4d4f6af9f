// The AWS clean-up watcher tries a failed clean-up again at its next poll. What an earlier try
// deleted must still be named by the down that waits for it: a try that deleted the instance
// profile and then threw, followed by one that deleted the role, names both (CI once saw only
// the role, when each try kept its own list).
import assert from 'node:assert/strict';
import { EC2Client } from '@aws-sdk/client-ec2';
import { CleanupWatchers } from '../../../src/core/clouds/aws/cleanupWatchers';
import { TAG_UID } from '../../../src/core/clouds/provider';

/** An EC2 client whose answers are made here: one terminated instance of the uid, no groups. */
function terminatedEc2(uid: string): EC2Client {
  const ec2 = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'none', secretAccessKey: 'none' } });
  ec2.send = (async (cmd: { constructor: { name: string } }) => {
    switch (cmd.constructor.name) {
      case 'DescribeInstancesCommand':
        return { Reservations: [{ Instances: [{ InstanceId: 'i-0abc', State: { Name: 'terminated' }, Tags: [{ Key: TAG_UID, Value: uid }] }] }] };
      case 'DescribeSecurityGroupsCommand':
        return { SecurityGroups: [] };
      default:
        throw new Error(`unexpected ${cmd.constructor.name}`);
    }
  }) as EC2Client['send'];
  return ec2;
}

describe('aws clean-up watchers: what a retried clean-up deleted', () => {
  it('a try that threw after deleting the profile, then one that deleted the role: the down names both', async () => {
    const uid = 'c-7f3a';
    const logs: string[] = [];
    let tries = 0;
    const w = new CleanupWatchers({
      pollMs: 5, timeoutMs: 5_000, log: (m) => logs.push(m),
      alsoDelete: async (_uid, deleted) => {
        tries++;
        if (tries === 1) {
          deleted.push('instance profile');
          throw new Error('DeleteRole: throttled');
        }
        deleted.push('role');
        return true;
      },
    });
    const outcome = await w.wait(terminatedEc2(uid), uid, 5_000, () => undefined);
    assert.equal(outcome, 'deleted');
    assert.equal(tries, 2, logs.join('\n'));
    assert.deepEqual(w.takeDeleted(uid), ['instance profile', 'role']);
    assert.deepEqual(w.takeDeleted(uid), [], 'asked once, then forgotten');
  });
});
