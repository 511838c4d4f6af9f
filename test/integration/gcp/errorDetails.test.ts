// The classifier's reason branch over Skydeck's REST client (rest.ts): HTTP errors with
// error.details[] google.rpc.ErrorInfo (which it lifts into .reason/.domain) and
// Operation errors with errorDetails[].errorInfo, each mapped to the kind the provision loop
// acts on — including the cases where the reason must overrule the status or the message.
import * as assert from 'node:assert/strict';
import { providerFailure as failure } from '../../support/providerFailure';
import { classifyGcpError, operationError } from '../../../src/core/clouds/gcp';
import { GcpApiError } from '../../../src/core/clouds/gcp/rest';
import { forbidden } from '../../support/fakes/gcpFake/bodies';
import { concurrentOperations, rateLimited, serviceDisabled, stockout } from '../../support/fakes/gcpFake/rpcErrors';
import { startGcpBed, runRequest, PROJECT, type GcpBed } from './helpers';

describe('gcp provider: error details (google.rpc.ErrorInfo) as GCP sends them', function () {
  this.timeout(30_000);
  let bed: GcpBed;
  before(async () => (bed = await startGcpBed()));
  after(async () => bed?.close());
  afterEach(() => {
    bed.fake.model.exhausted.clear();
    bed.fake.model.httpFaults.length = 0;
    bed.fake.denyMutations = false;
  });
  const num = () => bed.fake.model.projectNumber;
  const listFails = (e: Parameters<GcpBed['fake']['failNext']>[2]) => bed.fake.failNext('GET', /aggregated\/instances$/, e, 3); // the client tries a read up to 3 times (503/504 only)
  const insertFails = (e: Parameters<GcpBed['fake']['failNext']>[2]) => bed.fake.failNext('POST', /\/instances$/, e);

  it('the REST client hands the ErrorInfo over: reason, domain and metadata of an IAM denial', async () => {
    bed.fake.failNext('GET', /instances\/vm-x$/, forbidden('compute.instances.get', `projects/${PROJECT}/zones/us-central1-a/instances/vm-x`));
    const e = await bed.provider().clients.get(`projects/${PROJECT}/zones/us-central1-a/instances/vm-x`).then(() => undefined, (x: unknown) => x);
    assert.ok(e instanceof GcpApiError, String(e));
    assert.deepEqual([e.httpStatusCode, e.reason, e.domain, e.errorInfoMetadata?.permission, e.legacyReason, e.status],
      [403, 'IAM_PERMISSION_DENIED', 'compute.googleapis.com', 'compute.instances.get', 'forbidden', 'PERMISSION_DENIED']);
    assert.equal(e.message, `Required 'compute.instances.get' permission for 'projects/${PROJECT}/zones/us-central1-a/instances/vm-x'`);
    assert.equal(classifyGcpError(e), 'auth');
  });

  it('IAM_PERMISSION_DENIED on a mutation is "auth" and names the reason', async () => {
    bed.fake.denyMutations = true;
    const e = await failure(bed.provider().runInstances(runRequest()));
    assert.equal(e.kind, 'auth');
    assert.match(e.message, /Required 'compute\.instances\.create' permission .*\(HTTP 403, IAM_PERMISSION_DENIED\)/);
    assert.match(e.hint ?? '', /Compute Admin/);
  });

  it('SERVICE_DISABLED is "auth" with the command that enables the API', async () => {
    listFails(serviceDisabled(num()));
    const e = await failure(bed.provider().queryInstances({ uid: 'u1' }));
    assert.equal(e.kind, 'auth');
    assert.match(e.message, /SERVICE_DISABLED/);
    assert.equal(e.hint, 'enable the API: gcloud services enable compute.googleapis.com');
  });

  it('RATE_LIMIT_EXCEEDED is "transient" although its message says "Quota exceeded"', async () => {
    listFails(rateLimited(num()));
    const e = await failure(bed.provider().queryInstances({ uid: 'u2' }));
    assert.match(e.message, /^instances\.aggregatedList: Quota exceeded for quota metric/);
    assert.equal(e.kind, 'transient', 'a per-minute limit passes by itself: not a quota to raise, not a reason to leave the region');
  });

  it('CONCURRENT_OPERATIONS_QUOTA_EXCEEDED (HTTP 403, Compute\'s `metadatas`) is "transient", not "auth"', async () => {
    insertFails(concurrentOperations(num(), 'us-central1-a'));
    const e = await failure(bed.provider().runInstances(runRequest()));
    assert.equal(e.kind, 'transient');
    assert.match(e.message, /Rate Limit Exceeded \(HTTP 403, CONCURRENT_OPERATIONS_QUOTA_EXCEEDED\)/);
  });

  it('RESOURCE_AVAILABILITY on the call itself (HTTP 429) is "capacity", not "transient"', async () => {
    insertFails(stockout('us-central1-a', 'e2-standard-2', ['us-central1-b']));
    const e = await failure(bed.provider().runInstances(runRequest()));
    assert.equal(e.kind, 'capacity');
    assert.match(e.message, /RESOURCE_AVAILABILITY/);
  });

  it('a stockout inside the Operation is "capacity", read from errors[].code and errorDetails[].errorInfo.reason', async () => {
    bed.fake.model.exhausted.add('us-central1-a');
    const req = runRequest({ instanceType: 'n1-standard-4' });
    const e = await failure(bed.provider().runInstances(req));
    assert.equal(e.kind, 'capacity');
    assert.match(e.message, /^instances\.insert: ZONE_RESOURCE_POOL_EXHAUSTED: The zone 'projects\/skydeck-test\/zones\/us-central1-a' .* \(resource_availability\)$/);
    const op = [...bed.fake.model.operations.values()].find((o) => o.error)!;
    assert.equal(op.httpErrorStatusCode, 503);
    await bed.provider().terminateInstances({ uid: req.uid });
  });

  it('an Operation error whose code Skydeck does not know is still classified by its ErrorInfo reason', () => {
    // A code the table lacks (GCE adds codes; the reason catalogue is the stable part).
    const e = operationError('instances.insert', [{
      code: 'ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS_V2', message: 'The zone lacks what was asked for.',
      errorDetails: [{ errorInfo: { reason: 'resource_availability' } }],
    }]);
    assert.equal(e.kind, 'capacity');
    assert.equal(operationError('x', [{ code: 'SOMETHING_NEW', message: 'no' }]).kind, 'transient', 'no reason, no known code: try again');
  });
});
