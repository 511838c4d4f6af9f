// Error mapping and the faults moto cannot make, injected by the proxy in front of it:
// capacity per zone, late-visible instances, terminate calls that do nothing.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DescribeInstancesCommand, DescribeKeyPairsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { ProviderError, type Provider, type ProviderErrorKind } from '../../../src/core/clouds/provider';
import { keyPairName } from '../../../src/core/clouds/aws';
import { DUMMY_CREDENTIALS, skipWithoutMoto } from '../../support/moto';
import { REGION, runRequest, startBed, type AwsBed } from './helpers';

async function rejectsWith(p: Promise<unknown>, kind: ProviderErrorKind, re?: RegExp): Promise<ProviderError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ProviderError, `expected a ProviderError, got ${String(e)}`);
    assert.equal(e.kind, kind, e.message);
    if (re) assert.match(e.message, re);
    return e;
  }
  assert.fail(`expected a ${kind} error`);
}

/** Launch failing over zones by hand (the provision loop's test does it for real). */
async function firstZoneThatWorks(p: Provider, zones: string[]) {
  const tried: string[] = [];
  for (const zone of zones) {
    const req = runRequest({ zone });
    try {
      return { req, run: await p.runInstances(req), tried };
    } catch (e) {
      if (!(e instanceof ProviderError) || (e.kind !== 'capacity' && e.kind !== 'quota')) throw e;
      tried.push(`${zone}:${e.kind}`);
    }
  }
  throw new Error('no zone worked');
}

describe('aws provider: errors and faults (moto + fault proxy)', function () {
  this.timeout(60_000);
  let bed: AwsBed;

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
  });
  after(async () => bed?.close());
  afterEach(() => bed?.proxy.clear());

  it('maps EC2 errors to provider error kinds, with hints for auth and quota', async () => {
    const p = bed.provider();
    const cases: [string, number, ProviderErrorKind][] = [
      ['InsufficientInstanceCapacity', 500, 'capacity'], ['Unsupported', 400, 'capacity'],
      ['VcpuLimitExceeded', 400, 'quota'], ['InstanceLimitExceeded', 400, 'quota'], ['MaxSpotInstanceCountExceeded', 400, 'quota'],
      ['AuthFailure', 401, 'auth'], ['UnauthorizedOperation', 403, 'auth'],
      ['InvalidParameterValue', 400, 'config'], ['RequestLimitExceeded', 503, 'transient'], ['InternalError', 500, 'transient'],
    ];
    for (const [code, status, kind] of cases) {
      bed.proxy.errors.push({ action: 'RunInstances', code, status, times: 1 });
      const e = await rejectsWith(p.runInstances(runRequest()), kind, new RegExp(code));
      if (kind === 'auth' || kind === 'quota') assert.ok(e.hint, `${code} carries a hint`);
    }
    await rejectsWith(p.runInstances(runRequest({ instanceType: 'x9.nonexistent' })), 'config');
    const bad = runRequest();
    bad.placement.resources = { imageId: 'ami-00000000' };
    await rejectsWith(p.runInstances(bad), 'config', /ami-00000000/);
  });

  it('reads a zone the account does not have as capacity (the loop moves on), and honours image_id per region', async () => {
    const p = bed.provider();
    const e = await rejectsWith(p.runInstances(runRequest({ zone: 'us-east-1z' })), 'capacity');
    assert.match(e.message, /us-east-1z/);
    const req = runRequest();
    // Not the default lookup's image (xenial): the task's trusty image for this region.
    req.placement.resources = { imageId: { [REGION]: 'ami-1e749f67', 'eu-west-1': 'ami-other' } };
    const [id] = (await p.runInstances(req)).created;
    const raw = new EC2Client({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
    const d = await raw.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
    raw.destroy();
    assert.equal(d.Reservations?.[0]?.Instances?.[0]?.ImageId, 'ami-1e749f67');
    await p.terminateInstances({ uid: req.uid, region: REGION });
  });

  it('reports missing credentials and an unreachable endpoint in kinds the loop understands', async () => {
    const dead = bed.provider({ endpoint: 'http://127.0.0.1:9' });
    await rejectsWith(dead.queryInstances({ uid: 'x', region: REGION }), 'transient');
    const noCreds = bed.provider({ credentials: async () => { throw Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }); } } as never);
    const e = await rejectsWith(noCreds.queryInstances({ uid: 'x', region: REGION }), 'auth');
    assert.match(e.hint ?? '', /aws configure|AWS_PROFILE/);
  });

  it('fails over to the next zone on a capacity error', async () => {
    const p = bed.provider();
    bed.proxy.capacityZones.add('us-east-1a');
    const { run, tried, req } = await firstZoneThatWorks(p, ['us-east-1a', 'us-east-1b']);
    assert.deepEqual(tried, ['us-east-1a:capacity']);
    const q = await p.queryInstances({ uid: req.uid, region: REGION });
    assert.deepEqual(q.map((i) => [i.id, i.zone]), [[run.created[0], 'us-east-1b']]);
    await p.terminateInstances({ uid: req.uid, region: REGION });
  });

  it('an instance invisible at first is simply not listed (never an error read as empty), then shows up', async () => {
    const p = bed.provider();
    bed.proxy.hideNewForMs = 1500;
    const req = runRequest();
    const ref = { uid: req.uid, region: REGION };
    const [id] = (await p.runInstances(req)).created;
    assert.deepEqual(await p.queryInstances(ref), []);
    await new Promise((r) => setTimeout(r, 1600));
    assert.deepEqual((await p.queryInstances(ref)).map((i) => i.id), [id]);
    await p.terminateInstances(ref);
  });

  it('a terminate that does nothing is not claimed: the query still shows the instance running', async () => {
    const p = bed.provider({ cleanupTimeoutMs: 500 });
    const req = runRequest();
    const ref = { uid: req.uid, region: REGION };
    const [id] = (await p.runInstances(req)).created;
    bed.proxy.swallowTerminate = true;
    await p.terminateInstances(ref);
    assert.deepEqual(bed.proxy.swallowed, [id]);
    assert.deepEqual((await p.queryInstances(ref)).map((i) => i.status), ['running']);
    await p.settled(); // the group clean-up gave up: the instance still uses it
    bed.proxy.swallowTerminate = false;
    await p.terminateInstances(ref);
    assert.ok((await p.queryInstances(ref)).every((i) => i.status === 'terminated' || i.status === 'terminating'));
  });

  it('imports one key pair per user key, idempotently, and keeps the local key', async () => {
    await bed.moto.reset();
    const a = bed.provider();
    const b = bed.provider();
    for (const p of [a, b]) {
      const req = runRequest();
      await p.runInstances(req);
      await p.terminateInstances({ uid: req.uid, region: REGION });
    }
    const pub = fs.readFileSync(path.join(bed.dir, 'keys', 'skydeck-key.pub'), 'utf8');
    assert.equal((fs.statSync(path.join(bed.dir, 'keys', 'skydeck-key')).mode & 0o777), 0o600);
    const raw = new EC2Client({ region: REGION, endpoint: bed.moto.url, credentials: DUMMY_CREDENTIALS });
    const keys = await raw.send(new DescribeKeyPairsCommand({}));
    raw.destroy();
    assert.deepEqual(keys.KeyPairs?.map((k) => k.KeyName), [keyPairName(pub)]);
    assert.equal(bed.proxy.count('ImportKeyPair'), 1, 'the second provider finds the key pair and does not import again');
    assert.equal(bed.proxy.count('DescribeKeyPairs'), 2);
  });
});
