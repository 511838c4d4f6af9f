// Skydeck's REST client for Google APIs (src/core/clouds/gcp/rest.ts, clients.ts) on the GCE
// fake: which failures it tries again (reads on 503/504 only, never a mutation), how a list
// walk ends, and what an error answer that is not Google's JSON becomes.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleAuth } from 'google-auth-library';
import { apiError, GcpApiError, pages, restCall } from '../../../src/core/clouds/gcp/rest';
import { backendError, notFound } from '../../support/fakes/gcpFake/bodies';
import { startGcpBed, PROJECT, tokenClient, type GcpBed } from './helpers';

describe('gcp REST client', function () {
  this.timeout(30_000);
  let bed: GcpBed;
  before(async () => (bed = await startGcpBed()));
  after(async () => bed?.close());
  afterEach(() => (bed.fake.model.httpFaults.length = 0));
  const zones = `projects/${PROJECT}/zones`;
  const fault = () => bed.fake.model.httpFaults.at(-1)!; // the one failNext just added

  it('tries a read again on 503, as often as sdkRetries says, and then answers', async () => {
    bed.fake.failNext('GET', /\/zones$/, backendError(), 2);
    const page = await bed.provider().clients.get<{ items?: unknown[] }>(zones);
    assert.equal(fault().times, 0, 'both faults were met');
    assert.ok(page.items?.length);
    bed.fake.failNext('GET', /\/zones$/, backendError(), 2);
    await assert.rejects(bed.provider({ sdkRetries: 0 }).clients.get(zones), (e: unknown) => e instanceof GcpApiError && e.httpStatusCode === 503);
    assert.equal(fault().times, 1, 'no second try with sdkRetries 0');
  });

  it('never tries a mutation again, and never a read that failed for another reason', async () => {
    bed.fake.failNext('POST', /\/stop$/, backendError(), 2);
    await assert.rejects(bed.provider().clients.post(`${zones}/us-central1-a/instances/nope/stop`), { httpStatusCode: 503 });
    assert.equal(fault().times, 1);
    bed.fake.model.httpFaults.length = 0;
    bed.fake.failNext('GET', /\/zones$/, notFound('x'), 2);
    await assert.rejects(bed.provider().clients.get(zones), { httpStatusCode: 404, legacyReason: 'notFound', status: 'NOT_FOUND' });
    assert.equal(fault().times, 1);
  });

  it('a list walk follows every nextPageToken and stops at the page without one', async () => {
    const before = bed.fake.reads.length;
    const all = await bed.provider().clients.list<{ name?: string }>(zones);
    const asked = bed.fake.reads.slice(before).filter((r) => r.startsWith(`/compute/v1/${zones}`));
    assert.equal(all.length, bed.fake.model.zones.length);
    assert.equal(asked.length, Math.ceil(all.length / 2), 'pages of 2, none asked twice');
    assert.ok(!asked[0].includes('pageToken') && asked.slice(1).every((r) => r.includes('pageToken=')));
  });

  it('a page token handed back twice is refused instead of looping', async () => {
    const seen: (string | undefined)[] = [];
    const walk = async () => {
      for await (const p of pages(async (t) => (seen.push(t), { nextPageToken: 'same' }))) assert.ok(p);
    };
    await assert.rejects(walk(), /same nextPageToken twice/);
    assert.deepEqual(seen, [undefined, 'same']);
    const ends: (string | undefined)[] = [];
    for await (const p of pages(async (t) => (ends.push(t), t ? { nextPageToken: '' } : { nextPageToken: 'a' }))) assert.ok(p);
    assert.deepEqual(ends, [undefined, 'a'], 'an empty token ends the walk');
  });

  it('an error body that is not Google JSON keeps its status and its text', async () => {
    const e = apiError(502, '<html>Bad Gateway</html>', 'Bad Gateway');
    assert.deepEqual([e.httpStatusCode, e.message, e.status, e.reason], [502, '<html>Bad Gateway</html>', '', undefined]);
    assert.equal(apiError(500, '', 'Internal Server Error').message, 'Internal Server Error');
    // A 200 that is not JSON is an error too, not an empty answer.
    const srv = http.createServer((_q, r) => r.end('not json')).listen(0, '127.0.0.1');
    await new Promise((r) => srv.once('listening', r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/x`;
    const auth = new GoogleAuth({ authClient: tokenClient() });
    try {
      await assert.rejects(restCall(auth, 'GET', url), /not JSON: not json/);
    } finally {
      await new Promise((r) => srv.close(r));
    }
    // Nothing listens any more: fetch's bare "fetch failed" becomes the host and the cause.
    await assert.rejects(restCall(auth, 'GET', url), (e: Error) => !(e instanceof GcpApiError) && /^127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\)$/.test(e.message));
  });
});
