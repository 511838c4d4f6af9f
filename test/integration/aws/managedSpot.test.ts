// Issue 17 on moto: a managed job with use_spot and job_recovery on AWS. The controller's
// clusters are real RunInstances (spot) against moto; their heads are reached on loopback sshd
// test hosts standing in for the instances (sshdStandIn below), never at the addresses the
// emulator hands out. The "cloud" takes the spot instance out of band (TerminateInstances
// straight to moto, as a spot interruption with behaviour terminate ends it) and its head goes
// with it (its sshd host stopped): the controller must call it preemption, recover on a fresh
// cluster, finish, and leave no instance it made alive.
import * as assert from 'node:assert/strict';
import { DescribeInstancesCommand, EC2Client, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { listClusters } from '../../../src/core/state';
import { type OpsContext } from '../../../src/core/ops';
import { ManagedController } from '../../../src/core/managed';
import { startHosts, type TestHosts } from '../../hosts';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { waitJob } from '../../unit/managed/helpers';
import { REGION, startBed, type AwsBed } from './helpers';
import { standInContext } from './sshdStandIn';

// Waits on a file only the replacement's host has: the first run keeps going until preempted.
const TASK = [
  'resources:',
  `  infra: aws/${REGION}`,
  '  instance_type: t3.micro',
  '  use_spot: true',
  '  job_recovery: {strategy: FAILOVER, max_restarts_on_errors: 0}',
  'run: |',
  '  while [ ! -e "$HOME/replacement" ]; do sleep 0.2; done',
  '  echo "finished on the replacement"',
].join('\n');

describe('managed jobs on AWS (moto): a spot instance terminated by the cloud is recovered', function () {
  this.timeout(240_000);
  let bed: AwsBed;
  let hosts: TestHosts;
  let ctx: OpsContext;
  let raw: EC2Client;
  let ctl: ManagedController | undefined;

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
    hosts = await startHosts(2);
    await hosts.hosts[1].exec('touch "$HOME/replacement"');
    ctx = await standInContext({ dir: bed.dir, hosts, provider: bed.provider({ zones: { [REGION]: ['us-east-1a'] } }) });
    raw = new EC2Client({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
  });
  after(async () => {
    await ctl?.stop();
    await ctx?.connections.closeAll();
    ctx?.store.close();
    raw?.destroy();
    await hosts?.stop();
    await bed?.close();
  });

  /** Every instance moto holds with Skydeck's uid tag: id, uid, lifecycle (spot or not), state. */
  async function tagged(): Promise<{ id: string; uid: string; spot: boolean; state: string }[]> {
    const r = await raw.send(new DescribeInstancesCommand({ Filters: [{ Name: 'tag-key', Values: [TAG_UID] }] }));
    return (r.Reservations ?? []).flatMap((x) => x.Instances ?? []).map((i) => ({
      id: i.InstanceId!, uid: i.Tags?.find((t) => t.Key === TAG_UID)?.Value ?? '', spot: i.InstanceLifecycle === 'spot', state: i.State?.Name ?? '',
    }));
  }

  it('RUNNING → the spot instance terminated out of band → RECOVERING (preempted, not a user failure) → a new cluster → SUCCEEDED, 0 leaks', async () => {
    ctl = await ManagedController.open(ctx, { pollMs: 300, leaseTimeoutMs: 20_000 });
    await ctl.start();
    const id = await ctl.submit({ tasks: [TASK], name: 'spot' });
    const first = await waitJob(ctl, id, (j) => j.status === 'RUNNING', 'RUNNING', 120_000);
    const before = await tagged();
    assert.deepEqual(before.map((i) => [i.uid, i.spot, i.state]), [[first.clusterUid, true, 'running']], 'one spot instance, of the job\'s first cluster');

    // The cloud's doing: the instance goes (moto: out-of-band terminate) and its head with it.
    await raw.send(new TerminateInstancesCommand({ InstanceIds: [before[0].id] }));
    await hosts.hosts[0].stop();

    const done = await waitJob(ctl, id, (j) => j.status === 'SUCCEEDED' && !j.clusterName, 'SUCCEEDED with its cluster gone', 150_000);
    assert.equal(done.recoveryCount, 1);
    assert.equal(done.restartsOnErrors, 0, 'a preemption spends no max_restarts_on_errors');
    const moves = (await ctl.events(id)).map((e) => `${e.to}: ${e.reason}`);
    const rec = moves.filter((m) => m.startsWith('RECOVERING'));
    assert.equal(rec.length, 1, moves.join('\n'));
    assert.match(rec[0], /^RECOVERING: preempted: /);
    assert.deepEqual(moves.map((m) => m.split(':')[0]), ['PENDING', 'STARTING', 'RUNNING', 'RECOVERING', 'RUNNING', 'SUCCEEDED'], moves.join('\n'));

    // 0 leaks: both clusters' spot instances exist in moto and are terminated; no row is left.
    const all = await tagged();
    assert.equal(new Set(all.map((i) => i.uid)).size, 2, 'a replacement cluster (a new uid) was launched');
    assert.ok(all.every((i) => i.spot), 'the replacement is spot too');
    assert.deepEqual(all.filter((i) => i.state !== 'terminated').map((i) => `${i.id} ${i.state}`), []);
    assert.deepEqual((await ctx.store.read((db) => listClusters(db))).map((c) => c.name), []);
  });
});
