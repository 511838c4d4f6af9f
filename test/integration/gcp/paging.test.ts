// Lists page as Compute v1 pages them (maxResults / pageToken / nextPageToken), here at 2 per
// page: the cluster query, cluster info, down, the leak sweep and the zone check must all
// follow the token, or they would see only the first page and call the rest gone.
import * as assert from 'node:assert/strict';
import { StateStore } from '../../../src/core/state';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { checkGcp } from '../../../src/core/clouds/gcp';
import { downWithProof, findLeaked, provision, terminateLeaked, type ProvisionEnv } from '../../../src/core/provision';
import { startGcpBed, runRequest, PROJECT, REGION, tokenClient, type GcpBed, bedEnv, noBootstrap, FAST_TIMING } from './helpers';

describe('gcp: every listing follows nextPageToken (pages of 2)', function () {
  this.timeout(60_000);
  let bed: GcpBed;
  let store: StateStore;
  let env: ProvisionEnv;
  before(async () => {
    bed = await startGcpBed();
    // Paging is under test here, not the confirm deadline: one loaded CI run failed a sweep's
    // confirm (its message was not kept then; it is now), so the window is wide. A stray never
    // proved gone still fails the test.
    const timing = { ...FAST_TIMING, confirmTimeoutMs: 30_000 };
    ({ store, env } = await bedEnv(bed, bed.provider({ zones: { [REGION]: ['us-central1-a'] } }), timing));
  });
  after(async () => {
    store?.close();
    await bed?.close();
  });

  const get = async (rel: string) => {
    const r = await fetch(`http://127.0.0.1:${bed.fake.port}/compute/v1/projects/${PROJECT}/${rel}`, { headers: { authorization: 'Bearer t' } });
    return { status: r.status, body: (await r.json()) as Record<string, any> };
  };
  const pagesOf = (list: RegExp, from: number) => bed.fake.reads.slice(from).filter((r) => list.test(r.split('?')[0]));

  it('the fake pages as the API does: maxResults, an opaque nextPageToken, 400 for a bad size or token', async () => {
    for (const n of ['a', 'b', 'c']) await bed.provider().runInstances(runRequest({ clusterName: `pg-${n}` }));
    const first = await get('zones/us-central1-a/instances?maxResults=1');
    assert.equal(first.body.items.length, 1);
    assert.ok(first.body.nextPageToken);
    const rest = await get(`zones/us-central1-a/instances?pageToken=${first.body.nextPageToken}`);
    assert.deepEqual([rest.body.items.length, rest.body.nextPageToken], [2, undefined], 'no token once nothing remains');
    assert.equal((await get('zones/us-central1-a/instances?maxResults=500')).body.items.length, 2, 'the model pages at 2 whatever is asked');
    assert.equal((await get('zones/us-central1-a/instances?maxResults=501')).status, 400);
    assert.equal((await get('zones/us-central1-a/instances?pageToken=bm9wZQ')).status, 400);
    const agg = await get('aggregated/instances');
    assert.ok(agg.body.nextPageToken);
    assert.equal(agg.body.items['zones/europe-west4-a'].warning.code, 'NO_RESULTS_ON_PAGE', 'every scope is named on each page');
    assert.ok((await get('zones')).body.nextPageToken);
    assert.equal((await get('zones/us-central1-a/operations')).body.items.length, 2);
    for (const n of ['a', 'b', 'c']) {
      const uid = [...bed.fake.model.instances.values()].find((i) => i.labels['skydeck-cluster'] === `pg-${n}`)!.labels[TAG_UID];
      await bed.provider().terminateInstances({ uid });
    }
  });

  it('a 5-node cluster: query, cluster info and down see every node across pages', async () => {
    const from = bed.fake.reads.length;
    const res = await provision(env, { name: 'five', numNodes: 5, placements: [{ cloud: 'gcp', region: REGION, instanceType: 'e2-standard-2', useSpot: false }], bootstrap: noBootstrap });
    assert.ok(res.ok, res.error);
    const ref = { uid: res.row!.uid };
    assert.equal((await env.provider.queryInstances(ref)).length, 5);
    const info = await env.provider.clusterInfo(ref);
    assert.equal(info.workers.length, 4);
    assert.ok(pagesOf(/aggregated\/instances$/, from).some((r) => r.includes('pageToken=')), 'a second page was asked for');
    const down = await downWithProof(env, res.row!);
    assert.ok(down.confirmed && down.deleted, down.reason);
    assert.equal(bed.fake.model.calls.filter((c) => c.method === 'DELETE' && c.path.includes('/instances/five-')).length, 5);
    assert.equal(bed.fake.model.instances.size, 0);
  });

  it('the leak sweep finds strays on every page and in every zone, each zone named once', async () => {
    const strays = await Promise.all(['us-central1-a', 'us-central1-a', 'us-central1-a', 'us-central1-b', 'europe-west4-a'].map(async (zone, n) => {
      const req = runRequest({ clusterName: `stray${n}`, zone, placement: { cloud: 'gcp', region: zone.slice(0, -2), zone, instanceType: 'e2-standard-2', useSpot: false } });
      await env.provider.runInstances(req);
      return req.uid;
    }));
    const sweep = await findLeaked([env], 'ws-test');
    assert.deepEqual(sweep.errors, []);
    assert.deepEqual(sweep.thisWorkspace.map((l) => l.uid).sort(), [...strays].sort());
    const listed = sweep.swept[0].listed;
    assert.deepEqual([...listed].sort(), [...new Set(listed)].sort(), 'no zone twice');
    assert.deepEqual([...listed].sort(), bed.fake.model.zones.slice().sort());
    for (const leak of sweep.thisWorkspace) {
      const r = await terminateLeaked(env, leak);
      assert.ok(r.confirmed, r.message);
    }
    assert.equal(bed.fake.model.instances.size, 0);
  });

  it('an unreachable zone named on every page is reported once, and not as listed', async () => {
    for (const n of [1, 2, 3]) await env.provider.runInstances(runRequest({ clusterName: `u${n}` }));
    bed.fake.unreachable.add('us-central1-b');
    try {
      const t = await env.provider.listTagged();
      assert.equal(t.instances.length, 3);
      assert.deepEqual(t.unlisted.map((u) => u.region), ['us-central1-b']);
      assert.ok(!t.listed.includes('us-central1-b'));
    } finally {
      bed.fake.unreachable.clear();
    }
    for (const i of (await env.provider.listTagged()).instances) await env.provider.terminateInstances({ uid: i.tags[TAG_UID] });
  });

  it('checkGcp lists the zones of every page', async () => {
    const r = await checkGcp({ ...bed.options({ region: REGION }), authClient: tokenClient() });
    assert.ok(r.ok);
    assert.deepEqual(r.ok && r.details.zones, ['us-central1-a', 'us-central1-b', 'us-central1-c']);
    assert.ok(bed.fake.reads.some((x) => x.startsWith(`/compute/v1/projects/${PROJECT}/zones?`) && x.includes('pageToken=')));
  });
});
