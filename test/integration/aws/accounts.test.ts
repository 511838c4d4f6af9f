// Issue 12.2 and 12.4 on the EC2 emulator: clusters record their AWS account (STS
// GetCallerIdentity); a second account comes from STS AssumeRole, whose credentials act in
// that account in moto (its own instances, its own identity). The sweep lists every enabled
// region and names what it could not list.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EC2Client, RunInstancesCommand, DescribeImagesCommand } from '@aws-sdk/client-ec2';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { StateStore, getCluster } from '../../../src/core/state';
import { TAG_UID, TAG_CLUSTER, TAG_WORKSPACE, staticProviders } from '../../../src/core/clouds/provider';
import { downWithProof, findLeaked, makeEnv, provision, refreshOne, realClock, type Bootstrap, type ProvisionEnv } from '../../../src/core/provision';
import { runCli } from '../../../src/cli/main';
import { Connections, type OpsContext } from '../../../src/core/ops';
import type { AwsCredentials } from '../../../src/core/clouds/aws';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { REGION, startBed, type AwsBed } from './helpers';

const noBootstrap: Bootstrap = async () => ({ workdir: '/tmp' });
const OTHER_ACCOUNT = '222233334444';
const timing = { launchGraceMs: 1000, pollMs: 100, runningTimeoutMs: 20_000, confirmTimeoutMs: 2000, reissueAfterMs: 500, transientRetries: 1, backoffMs: 50 };

describe('aws: cluster accounts and the sweep over every region (issue 12.2, 12.4)', function () {
  this.timeout(120_000);
  let bed: AwsBed;
  let store: StateStore;
  let root: string;
  let other: AwsCredentials;

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
    root = fs.mkdtempSync(path.join(bed.dir, 'ws-'));
    store = await StateStore.openWorkspace(root);
    const sts = new STSClient({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
    const c = (await sts.send(new AssumeRoleCommand({ RoleArn: `arn:aws:iam::${OTHER_ACCOUNT}:role/skydeck-test`, RoleSessionName: 'skydeck-test' }))).Credentials!;
    sts.destroy();
    other = { accessKeyId: c.AccessKeyId!, secretAccessKey: c.SecretAccessKey!, sessionToken: c.SessionToken };
  });
  after(async () => {
    store?.close();
    await bed?.close();
  });
  afterEach(() => bed?.proxy.clear());

  const envWith = (extra: Parameters<AwsBed['provider']>[0] = {}): ProvisionEnv =>
    makeEnv({ store, clock: realClock, timing, progress: () => undefined, log: () => undefined }, bed.provider(extra));

  it('issue 12.2: moto keeps two accounts apart (AssumeRole credentials act in the other account)', async () => {
    assert.equal(await bed.provider().identity(), '123456789012');
    assert.equal(await bed.provider({ credentials: other }).identity(), OTHER_ACCOUNT);
  });

  it('issue 12.2: after switching to another AWS account, refresh and down say unknown; no row deleted, the instance keeps its owner', async () => {
    const home = envWith();
    const res = await provision(home, { name: 'acct1', numNodes: 1, placements: [{ cloud: 'aws', region: REGION, zone: 'us-east-1a', instanceType: 't3.micro', useSpot: false }], bootstrap: noBootstrap });
    assert.ok(res.ok, res.error);
    assert.equal(res.row!.account, '123456789012', 'the intent records the account');

    // The user switches profile: same workspace, credentials of the other account.
    const away = envWith({ credentials: other, regions: [REGION] });
    await new Promise((r) => setTimeout(r, timing.launchGraceMs + 100)); // an empty answer would now delete
    const row = (await store.read((db) => getCluster(db, 'acct1')))!;
    const r = await refreshOne(away, row);
    assert.equal(r.action, 'error', r.message);
    assert.match(r.message!, /unknown — credentials point at aws account 222233334444, the cluster lives in 123456789012/);
    const d = await downWithProof(away, row);
    assert.equal(d.deleted, false);
    assert.match(d.reason!, /credentials point at aws account 222233334444/);
    assert.ok(await store.read((db) => getCluster(db, 'acct1')), 'row kept');
    const live = (await home.provider.queryInstances({ uid: row.uid, region: REGION, account: '123456789012' })).filter((i) => i.status === 'running');
    assert.equal(live.length, 1, 'nothing was terminated from the wrong account');

    // The sweep from the other account names the cluster's account as unknown.
    const sweep = await findLeaked([away], 'ws');
    assert.deepEqual(sweep.swept.map((s) => s.account), [OTHER_ACCOUNT]);
    assert.deepEqual(sweep.errors.map((e) => [e.cloud, e.account]), [['aws', '123456789012']]);

    // Back home: down works and proves it.
    const back = await downWithProof(home, (await store.read((db) => getCluster(db, 'acct1')))!);
    assert.ok(back.confirmed && back.deleted, back.reason);
  });

  it('issue 12.4: the sweep lists every enabled region in parallel and finds a leak outside the default region', async () => {
    const paris = new EC2Client({ region: 'eu-west-3', endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
    try {
      const image = (await paris.send(new DescribeImagesCommand({ Owners: ['amazon'] }))).Images![0].ImageId!;
      const tags = [{ Key: TAG_UID, Value: 'uid-stray' }, { Key: TAG_CLUSTER, Value: 'stray' }, { Key: TAG_WORKSPACE, Value: 'ws' }];
      const run = await paris.send(new RunInstancesCommand({ ImageId: image, MinCount: 1, MaxCount: 1, InstanceType: 't3.micro', TagSpecifications: [{ ResourceType: 'instance', Tags: tags }] }));
      const id = run.Instances![0].InstanceId!;
      const sweep = await findLeaked([envWith()], 'ws');
      assert.deepEqual(sweep.errors, []);
      assert.ok(sweep.swept[0].listed.length > 10 && sweep.swept[0].listed.includes('eu-west-3') && sweep.swept[0].listed.includes(REGION), sweep.swept[0].listed.join(','));
      assert.deepEqual(sweep.thisWorkspace.map((l) => [l.instance.id, l.instance.region, l.account]), [[id, 'eu-west-3', '123456789012']]);
    } finally {
      paris.destroy();
    }
  });

  /** `skydeck leaks` with this provider as the only cloud. */
  async function leaksCli(extra: Parameters<AwsBed['provider']>[0]) {
    const ctx: OpsContext = {
      store, workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
      connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts') }),
      progress: () => undefined, log: () => undefined, warn: () => undefined, user: 'tester',
      providers: staticProviders(bed.provider(extra)), clock: realClock, timing,
    };
    let out = '';
    let err = '';
    const code = await runCli(['leaks'], { out: (t) => (out += t), outBytes: (b) => (out += b.toString()), err: (t) => (err += t) }, async () => ctx);
    return { code, out, err };
  }

  it('issue 12.4: a region whose listing fails is named unknown in the summary, never "none", and leaks exits 1', async () => {
    bed.proxy.errors.push({ action: 'DescribeInstances', code: 'UnauthorizedOperation', status: 403, message: 'You are not authorized to perform this operation.', times: 1 });
    const r = await leaksCli({ regions: ['eu-west-3', REGION], sweepConcurrency: 1 });
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /Leaked instances of this workspace \([^)]+\): none found where listed; UNKNOWN in aws eu-west-3 \(account 123456789012\)/);
    assert.doesNotMatch(r.out, /: none\./);
    assert.match(r.err, /could not list aws eu-west-3 \(account 123456789012\): DescribeInstances: UnauthorizedOperation/);
    assert.match(r.out, /Listed: aws account 123456789012 \(us-east-1\)/);
  });

  it('issue 12.4: when the account cannot be determined (no answer from STS), the whole cloud is unknown and leaks exits 1', async () => {
    const r = await leaksCli({ stsEndpoint: 'http://127.0.0.1:9' });
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /Listed: nothing/);
    assert.match(r.out, /Leaked instances of this workspace \([^)]+\): none found where listed; UNKNOWN in aws \(could not be listed\)/);
    assert.match(r.err, /could not list aws: cannot tell which account the credentials point at: transient: GetCallerIdentity/);
  });
});
