// Launch, query, cluster info, stop, start, terminate and security-group clean-up through the
// real EC2 client against moto (no faults injected here).
import * as assert from 'node:assert/strict';
import { DescribeInstancesCommand, DescribeSecurityGroupsCommand, DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { TAG_CLUSTER, TAG_UID, TAG_WORKSPACE } from '../../../src/core/clouds/provider';
import { checkAws } from '../../../src/core/clouds/aws';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { REGION, runRequest, startBed, type AwsBed } from './helpers';

describe('aws provider: lifecycle on the EC2 emulator', function () {
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

  it('launches tagged instances (and volumes), finds them by uid, and reports the head', async () => {
    const p = bed.provider();
    const req = runRequest({ numNodes: 2, zone: 'us-east-1b' });
    req.placement.resources = { diskSize: 77 };
    const run = await p.runInstances(req);
    assert.equal(run.created.length, 2);
    const q = await p.queryInstances({ uid: req.uid, region: REGION });
    assert.deepEqual(q.map((i) => i.id).sort(), [...run.created].sort());
    for (const i of q) {
      assert.equal(i.tags[TAG_UID], req.uid);
      assert.equal(i.tags[TAG_CLUSTER], req.clusterName);
      assert.equal(i.tags[TAG_WORKSPACE], 'ws-test');
      assert.equal(i.zone, 'us-east-1b');
      assert.equal(i.instanceType, 't3.micro');
    }
    const vols = await raw.send(new DescribeVolumesCommand({ Filters: [{ Name: `tag:${TAG_UID}`, Values: [req.uid] }] }));
    assert.equal(vols.Volumes?.length, 2, 'volumes carry the cluster tags');
    assert.ok(vols.Volumes!.every((v) => v.Size === 77), 'disk_size sets the root volume');
    const info = await p.clusterInfo({ uid: req.uid, region: REGION });
    assert.equal(info.head.id, run.created[0], 'the first created instance is tagged head');
    assert.equal(info.workers.length, 1);
    assert.equal(info.sshUser, 'ubuntu');
    assert.ok(info.sshKeyPath && info.sshKeyPath.startsWith(bed.dir));
    // Never connected to: the emulator's addresses are fake.
    assert.match(info.head.address, /^\d+\.\d+\.\d+\.\d+$/);
  });

  it('stops, starts (resume = start, not create) and terminates; the group goes after termination', async () => {
    const p = bed.provider();
    const req = runRequest();
    const ref = { uid: req.uid, region: REGION };
    const [id] = (await p.runInstances(req)).created;
    await p.stopInstances(ref);
    await p.waitInstances(ref, 'stopped', 10_000);
    assert.deepEqual((await p.queryInstances(ref)).map((i) => i.status), ['stopped']);
    const again = await p.runInstances(req);
    assert.deepEqual(again, { created: [], resumed: [id] }, 'a stopped cluster is started, not re-created');
    await p.waitInstances(ref, 'running', 10_000);
    await p.stopInstances(ref);
    await p.startInstances(ref);
    await p.waitInstances(ref, 'running', 10_000);

    const groups = async () => (await raw.send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: `tag:${TAG_UID}`, Values: [req.uid] }] }))).SecurityGroups ?? [];
    const [sg] = await groups();
    assert.ok(sg, 'a security group per cluster, tagged with the uid');
    assert.ok(sg.IpPermissions?.some((r) => r.FromPort === 22 && r.ToPort === 22), 'SSH is open');
    await p.openPorts(ref, [{ from: 8888, to: 8888 }, { from: 9000, to: 9010 }]);
    await p.openPorts(ref, [{ from: 8888, to: 8888 }]); // already open: fine
    const [sg2] = await groups();
    assert.ok(sg2.IpPermissions?.some((r) => r.FromPort === 9000 && r.ToPort === 9010));

    await p.terminateInstances(ref);
    const after = await p.queryInstances(ref);
    assert.ok(after.every((i) => i.status === 'terminating' || i.status === 'terminated'));
    await p.settled();
    assert.deepEqual(await groups(), [], 'the security group is deleted once every instance is terminated');
  });

  it('launches spot instances with InstanceMarketOptions', async () => {
    const p = bed.provider();
    const req = runRequest({ useSpot: true });
    const [id] = (await p.runInstances(req)).created;
    const d = await raw.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
    assert.equal(d.Reservations?.[0]?.Instances?.[0]?.InstanceLifecycle, 'spot');
    await p.terminateInstances({ uid: req.uid, region: REGION });
  });

  it('only tops up the shortfall when some nodes exist, and lists tagged instances for the sweep', async () => {
    const p = bed.provider();
    const req = runRequest({ numNodes: 1 });
    await p.runInstances(req);
    const more = await p.runInstances({ ...req, numNodes: 3 });
    assert.equal(more.created.length, 2);
    const listed = (await p.listTagged()).instances;
    assert.equal(listed.filter((i) => i.tags[TAG_UID] === req.uid).length, 3);
    assert.ok(listed.every((i) => i.status !== 'terminated'));
    const info = await p.clusterInfo({ uid: req.uid, region: REGION });
    assert.equal(info.workers.length, 2);
    assert.ok(!info.workers.some((w) => w.id === info.head.id));
    await p.terminateInstances({ uid: req.uid, region: REGION });
  });

  it('lists tagged instances across every configured region', async () => {
    const p = bed.provider({ regions: [REGION, 'us-west-2'] });
    const east = runRequest();
    const west = runRequest({ placement: { cloud: 'aws', region: 'us-west-2', instanceType: 't3.micro', useSpot: false } });
    west.region = 'us-west-2';
    await p.runInstances(east);
    await p.runInstances(west);
    const listed = (await p.listTagged()).instances;
    const mine = listed.filter((i) => [east.uid, west.uid].includes(i.tags[TAG_UID]));
    assert.deepEqual(mine.map((i) => i.region).sort(), [REGION, 'us-west-2']);
    await p.terminateInstances({ uid: east.uid, region: REGION });
    await p.terminateInstances({ uid: west.uid, region: 'us-west-2' });
  });

  it('checkAws probes EC2 and says what to fix when it cannot', async () => {
    const ok = await checkAws({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
    assert.ok(ok.ok);
    assert.equal(ok.region, REGION);
    assert.ok(ok.zones.includes('us-east-1a'));
    assert.equal(ok.account, '123456789012');
    const down = await checkAws({ region: REGION, endpoint: 'http://127.0.0.1:9', credentials: DUMMY_CREDENTIALS, maxAttempts: 1 });
    assert.ok(!down.ok && down.kind === 'transient' && down.fix);
    const noCreds = await checkAws({
      region: REGION, endpoint: bed.moto.url,
      credentials: (async () => { throw Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }); }) as never,
    });
    assert.ok(!noCreds.ok && noCreds.kind === 'auth');
    assert.match(noCreds.fix, /aws configure|AWS_PROFILE/);
  });
});
