// Terminate by id for run-call ids the tag listing does not show yet, against moto: EC2's own
// answer is the proof, and only an instance carrying the uid's tag is touched.
import * as assert from 'node:assert/strict';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { terminateUnlisted } from '../../../src/core/clouds/aws/terminateIds';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { REGION, runRequest, startBed, type AwsBed } from './helpers';

describe('aws: terminate by id of instances not listed yet', function () {
  this.timeout(60_000);
  let bed: AwsBed;
  let raw: EC2Client;

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
    raw = new EC2Client({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
  });
  after(async () => {
    raw?.destroy();
    await bed?.close();
  });

  const stateOf = async (id: string) =>
    (await raw.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations?.[0]?.Instances?.[0]?.State?.Name;

  it('answers with the ids EC2 reported shutting down; another uid\'s instance and unknown ids are left alone', async () => {
    const mine = runRequest();
    const theirs = runRequest({ clusterName: 'theirs' });
    const [id] = (await bed.provider().runInstances(mine)).created;
    const [other] = (await bed.provider().runInstances(theirs)).created;
    // An id EC2 does not know (yet): NotFound proves nothing and is no error.
    const unknown = 'i-0123456789abcdef0';
    assert.deepEqual(await terminateUnlisted(raw, mine.uid, [unknown, other, id]), [id]);
    assert.ok(['shutting-down', 'terminated'].includes((await stateOf(id))!), await stateOf(id));
    assert.equal(await stateOf(other), 'running', 'a row\'s ids alone are no warrant to terminate');
  });
});
