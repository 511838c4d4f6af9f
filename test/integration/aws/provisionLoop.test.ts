// The real provision loop (src/core/provision) driving the AWS provider over moto + the fault
// proxy: zone failover on capacity, late-visible instances, down with proof, and a terminate
// that does nothing leaving the row flagged instead of deleted. Bootstrap is a no-op: the
// emulator's instances are not reachable (and their addresses are never connected to).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DescribeSecurityGroupsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { StateStore, getCluster, listClusters } from '../../../src/core/state';
import { TAG_UID, isLive } from '../../../src/core/clouds/provider';
import { downWithProof, makeEnv, provision, realClock, FLAGS, type Bootstrap, type ProvisionEnv } from '../../../src/core/provision';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { REGION, startBed, type AwsBed } from './helpers';

const noBootstrap: Bootstrap = async () => ({ workdir: '/tmp' });

describe('aws provider under the provision loop (moto + fault proxy)', function () {
  this.timeout(120_000);
  let bed: AwsBed;
  let store: StateStore;
  let env: ProvisionEnv;
  let truth: ReturnType<AwsBed['provider']>;
  let raw: EC2Client;
  const progress: string[] = [];

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
    const root = fs.mkdtempSync(path.join(bed.dir, 'ws-'));
    store = await StateStore.openWorkspace(root);
    const provider = bed.provider({ zones: { [REGION]: ['us-east-1a', 'us-east-1b', 'us-east-1c'] } });
    env = makeEnv({
      store, clock: realClock, progress: (s) => progress.push(s), log: (m) => progress.push(m),
      timing: { launchGraceMs: 3000, pollMs: 200, runningTimeoutMs: 20_000, confirmTimeoutMs: 3000, reissueAfterMs: 1000, transientRetries: 2, backoffMs: 100 },
    }, provider);
    // The cloud's truth, straight from moto (no proxy, no faults).
    truth = bed.provider({ endpoint: bed.moto.url });
    raw = new EC2Client({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
  });
  after(async () => {
    store?.close();
    raw?.destroy();
    await bed?.close();
  });
  afterEach(() => bed?.proxy.clear());

  /** Leak invariant: every live tagged instance in moto is owned by a row. */
  async function assertNoLeaks(): Promise<void> {
    const owned = new Set((await store.read((db) => listClusters(db))).map((c) => c.uid));
    const stray = (await truth.listTagged()).instances.filter((i) => isLive(i.status) && !owned.has(i.tags[TAG_UID]));
    assert.deepEqual(stray.map((i) => i.id), []);
  }

  it('fails over from a zone without capacity, waits out late-visible instances, and downs with proof', async () => {
    bed.proxy.capacityZones.add('us-east-1a');
    bed.proxy.hideNewForMs = 1200;
    const res = await provision(env, {
      name: 'fo', numNodes: 2, placements: [{ cloud: 'aws', region: REGION, instanceType: 't3.micro', useSpot: false }],
      ports: [{ from: 8080, to: 8080 }], bootstrap: noBootstrap,
    });
    assert.ok(res.ok, res.error);
    assert.deepEqual(res.attempts.map((a) => [a.placement.zone, a.outcome, a.kind ?? '', a.cleanup]), [
      ['us-east-1a', 'failed', 'capacity', 'confirmed'], ['us-east-1b', 'up', '', 'not-needed'],
    ]);
    const row = res.row!;
    assert.equal(row.status, 'UP');
    assert.equal(row.zone, 'us-east-1b');
    assert.ok(bed.proxy.count('DescribeInstances') >= 2, 'the loop polled while the instances were hidden');
    const live = (await truth.queryInstances({ uid: row.uid, region: REGION })).filter((i) => isLive(i.status));
    assert.equal(live.length, 2);
    assert.ok(live.every((i) => i.zone === 'us-east-1b' && i.status === 'running'));
    await assertNoLeaks();

    const down = await downWithProof(env, row);
    assert.ok(down.confirmed && down.deleted, down.reason);
    assert.equal(await store.read((db) => getCluster(db, 'fo')), undefined);
    assert.ok((await truth.queryInstances({ uid: row.uid, region: REGION })).every((i) => !isLive(i.status)));
    await (env.provider as ReturnType<AwsBed["provider"]>).settled();
    const groups = await raw.send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: `tag:${TAG_UID}`, Values: [row.uid] }] }));
    assert.deepEqual(groups.SecurityGroups, [], 'the cluster security group is gone after confirmed termination');
    await assertNoLeaks();
  });

  it('a terminate that does nothing keeps the row (flagged), and a later down finishes with proof', async () => {
    const res = await provision(env, {
      name: 'stuck', numNodes: 1, placements: [{ cloud: 'aws', region: REGION, zone: 'us-east-1c', instanceType: 't3.micro', useSpot: false }],
      bootstrap: noBootstrap,
    });
    assert.ok(res.ok, res.error);
    bed.proxy.swallowTerminate = true;
    const first = await downWithProof(env, res.row!);
    assert.equal(first.confirmed, false);
    assert.equal(first.deleted, false);
    assert.ok(bed.proxy.swallowed.length >= 2, 'the unconfirmed terminate was re-issued');
    const kept = await store.read((db) => getCluster(db, 'stuck'));
    assert.equal(kept?.flags, FLAGS.terminationUnconfirmed);
    assert.deepEqual((await truth.queryInstances({ uid: kept!.uid, region: REGION })).map((i) => i.status), ['running']);
    await assertNoLeaks();

    bed.proxy.swallowTerminate = false;
    const second = await downWithProof(env, kept!);
    assert.ok(second.confirmed && second.deleted, second.reason);
    assert.ok((await truth.queryInstances({ uid: kept!.uid, region: REGION })).every((i) => !isLive(i.status)));
    await assertNoLeaks();
  });
});
