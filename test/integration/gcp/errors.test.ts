// Failures as GCP reports them (HTTP errors and errors inside finished Operations), mapped to
// the ProviderError kinds the provision loop acts on, with the fix a user needs.
import * as assert from 'node:assert/strict';
import { PassThroughClient } from 'google-auth-library';
import { providerFailure as failure } from '../../support/providerFailure';
import { labelKey, labelValue } from '../../../src/core/clouds/gcp';
import { backendError, quotaHttp } from '../../support/fakes/gcpFake/bodies';
import { startGcpBed, runRequest, REGION, type GcpBed } from './helpers';

describe('gcp provider: errors as GCP reports them', function () {
  this.timeout(30_000);
  let bed: GcpBed;
  before(async () => (bed = await startGcpBed()));
  after(async () => bed?.close());
  afterEach(() => {
    bed.fake.model.exhausted.clear();
    bed.fake.model.cpuQuota = undefined;
    bed.fake.model.httpFaults.length = 0;
    bed.fake.denyMutations = false;
  });

  it('a zone out of capacity fails the insert operation as "capacity", leaving no VM', async () => {
    bed.fake.model.exhausted.add('us-central1-a');
    const p = bed.provider();
    const req = runRequest({ numNodes: 2 });
    const e = await failure(p.runInstances(req));
    assert.equal(e.kind, 'capacity');
    assert.match(e.message, /ZONE_RESOURCE_POOL_EXHAUSTED/);
    await p.waitInstances({ uid: req.uid }, 'terminated', 3000);
    await p.terminateInstances({ uid: req.uid });
  });

  it('starting a stopped VM in a full zone is "capacity" too', async () => {
    const p = bed.provider();
    const req = runRequest({ zone: 'us-central1-b' });
    await p.runInstances(req);
    await p.waitInstances({ uid: req.uid }, 'running', 5000);
    await p.stopInstances({ uid: req.uid });
    await p.waitInstances({ uid: req.uid }, 'stopped', 5000);
    bed.fake.model.exhausted.add('us-central1-b');
    assert.equal((await failure(p.startInstances({ uid: req.uid }))).kind, 'capacity');
    await p.terminateInstances({ uid: req.uid });
  });

  it('QUOTA_EXCEEDED (operation error or HTTP 403 quotaExceeded) is "quota", not auth', async () => {
    bed.fake.model.cpuQuota = 4;
    const p = bed.provider();
    const e = await failure(p.runInstances(runRequest({ instanceType: 'e2-standard-8' })));
    assert.equal(e.kind, 'quota');
    assert.match(e.message, /QUOTA_EXCEEDED: Quota 'CPUS' exceeded/);
    assert.match(e.hint ?? '', /quota/i);
    bed.fake.model.cpuQuota = undefined;
    bed.fake.failNext('POST', /\/instances$/, quotaHttp('CPUS', 24, REGION));
    assert.equal((await failure(p.runInstances(runRequest()))).kind, 'quota');
  });

  it('an unknown machine type or image is "config" with a hint', async () => {
    const p = bed.provider();
    const bad = await failure(p.runInstances(runRequest({ instanceType: 'n9-huge-1' })));
    assert.equal(bad.kind, 'config');
    assert.match(bad.message, /Machine type with name 'n9-huge-1' does not exist/);
    assert.match(bad.hint ?? '', /instance_type/);
    const img = await failure(p.runInstances(runRequest({ resources: { imageId: 'projects/nope/global/images/none' } })));
    assert.equal(img.kind, 'config');
    assert.match(img.hint ?? '', /image_id/);
  });

  it('missing or refused credentials are "auth" with the gcloud command to run', async () => {
    const anon = bed.provider({ authClient: new PassThroughClient() }); // sends no token
    const e = await failure(anon.queryInstances({ uid: 'x' }));
    assert.equal(e.kind, 'auth');
    assert.match(e.hint ?? '', /gcloud auth application-default login/);
    bed.fake.denyMutations = true;
    const denied = await failure(bed.provider().runInstances(runRequest()));
    assert.equal(denied.kind, 'auth');
    assert.match(denied.message, /Required 'compute\./);
  });

  it('5xx and network failures are "transient"; a failed listing is never an empty answer', async () => {
    const p = bed.provider();
    bed.fake.failNext('GET', /aggregated\/instances$/, backendError(), 3); // the REST client tries a read again twice on 503
    assert.equal((await failure(p.queryInstances({ uid: 'y' }))).kind, 'transient');
    bed.fake.unreachable.add('us-central1-b');
    const partial = await failure(p.queryInstances({ uid: 'y' }));
    bed.fake.unreachable.clear();
    assert.equal(partial.kind, 'transient', 'an UNREACHABLE zone makes the answer unknown, not empty');
    assert.match(partial.message, /zones\/us-central1-b/);
    const dead = bed.provider({ port: 1 }); // nothing listens there
    assert.equal((await failure(dead.listTagged())).kind, 'transient');
  });

  it('maps tag keys and values onto GCP label rules', () => {
    assert.equal(labelValue('My.Cluster Name'), 'my-cluster-name');
    assert.equal(labelValue('x'.repeat(80)).length, 63);
    assert.equal(labelValue('3f2a-ok_1'), '3f2a-ok_1');
    assert.equal(labelKey('Skydeck.Cluster'), 'skydeck-cluster');
    assert.equal(labelKey('9lives'), 'k9lives');
  });
});
