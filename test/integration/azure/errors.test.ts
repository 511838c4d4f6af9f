// Failures as ARM reports them (synchronous {error:{code,message}} answers and long-running
// operations that end Failed), mapped to the ProviderError kinds the provision loop acts on.
import * as assert from 'node:assert/strict';
import { providerFailure as failure } from '../../support/providerFailure';
import { ArmError, throttled } from '../../support/fakes/azureFake/bodies';
import { startAzureBed, runRequest, REGION, type AzureBed } from './helpers';

describe('azure provider: errors as ARM reports them', function () {
  this.timeout(30_000);
  let bed: AzureBed;
  before(async function () {
    bed = await startAzureBed(this);
  });
  after(async () => bed?.close());
  afterEach(() => {
    const m = bed.fake.model;
    m.allocationFails.clear();
    m.restricted.clear();
    m.coreQuota = m.spotQuota = undefined;
    bed.fake.faults.length = 0;
    bed.fake.denyWrites = false;
  });

  it('AllocationFailed (an operation that ends Failed) and SkuNotAvailable (409) are "capacity"', async () => {
    const p = bed.provider();
    bed.fake.model.allocationFails.add(REGION);
    const req = runRequest();
    const e = await failure(p.runInstances(req));
    assert.equal(e.kind, 'capacity');
    assert.match(e.message, /AllocationFailed/);
    assert.deepEqual((await p.queryInstances({ uid: req.uid })).map((i) => i.status), ['stopped'], 'a VM whose allocation failed holds no hardware');
    await p.terminateInstances({ uid: req.uid });
    await p.waitInstances({ uid: req.uid }, 'terminated', 5000);
    bed.fake.model.allocationFails.clear();
    bed.fake.model.restricted.add(`${REGION}/Standard_D4s_v5`);
    const sku = await failure(p.runInstances(runRequest({ instanceType: 'Standard_D4s_v5' })));
    assert.equal(sku.kind, 'capacity');
    assert.match(sku.message, /SkuNotAvailable/);
  });

  it('starting a deallocated VM without capacity is "capacity" too', async () => {
    const p = bed.provider();
    const req = runRequest();
    await p.runInstances(req);
    await p.stopInstances({ uid: req.uid });
    await p.waitInstances({ uid: req.uid }, 'stopped', 5000);
    bed.fake.model.allocationFails.add(REGION);
    assert.equal((await failure(p.startInstances({ uid: req.uid }))).kind, 'capacity');
    await p.terminateInstances({ uid: req.uid });
  });

  it('core quota (OperationNotAllowed … quota) is "quota", for spot (LowPriorityCores) too', async () => {
    const p = bed.provider();
    bed.fake.model.coreQuota = 4;
    const e = await failure(p.runInstances(runRequest({ instanceType: 'Standard_D8s_v5' })));
    assert.equal(e.kind, 'quota');
    assert.match(e.message, /OperationNotAllowed: .*standardDSv5Family Cores quota/);
    assert.match(e.hint ?? '', /quota/);
    bed.fake.model.spotQuota = 0;
    const s = await failure(p.runInstances(runRequest({ useSpot: true })));
    assert.equal(s.kind, 'quota');
    assert.match(s.message, /LowPriorityCores/);
  });

  it('an invalid size or image is "config" with a hint', async () => {
    const p = bed.provider();
    const size = await failure(p.runInstances(runRequest({ instanceType: 'Standard_Nope' })));
    assert.equal(size.kind, 'config');
    assert.match(size.hint ?? '', /instance_type/);
    const img = await failure(p.runInstances(runRequest({ resources: { imageId: 'Canonical:nope:1:latest' } })));
    assert.equal(img.kind, 'config');
    assert.match(img.message, /PlatformImageNotFound/);
    assert.match(img.hint ?? '', /image_id/);
  });

  it('missing token or role is "auth" with what to do', async () => {
    const anon = bed.provider({ credential: { getToken: async () => ({ token: '', expiresOnTimestamp: Date.now() + 3600_000 }) } });
    const e = await failure(anon.queryInstances({ uid: 'x' }));
    assert.equal(e.kind, 'auth');
    assert.match(e.hint ?? '', /az login/);
    bed.fake.denyWrites = true;
    const denied = await failure(bed.provider().runInstances(runRequest()));
    assert.equal(denied.kind, 'auth');
    assert.match(denied.hint ?? '', /role/);
    const noSub = await failure(bed.provider({ subscriptionId: undefined }).queryInstances({ uid: 'x' }));
    assert.equal(noSub.kind, 'auth');
    assert.match(noSub.hint ?? '', /AZURE_SUBSCRIPTION_ID/);
  });

  it('throttling, 5xx and network failures are "transient"; a failed listing is never an empty answer', async () => {
    const p = bed.provider();
    bed.fake.failNext('GET', /virtualMachines$/, throttled());
    assert.equal((await failure(p.queryInstances({ uid: 'y' }))).kind, 'transient');
    bed.fake.failNext('GET', /virtualMachines$/, new ArmError(503, 'ServiceUnavailable', 'The service is temporarily unavailable.'));
    assert.equal((await failure(p.listTagged())).kind, 'transient');
    const dead = bed.provider({ endpoint: 'https://127.0.0.1:1' });
    assert.equal((await failure(dead.listTagged())).kind, 'transient');
  });
});
