// The real provision loop (src/core/provision) driving the GCP provider over the fake: zone
// failover on ZONE_RESOURCE_POOL_EXHAUSTED with the failed zone proven empty first, then
// down with proof. Bootstrap is a no-op (the fake's addresses are never connected to).
import * as assert from 'node:assert/strict';
import { StateStore, getCluster, listClusters } from '../../../src/core/state';
import { TAG_UID, isLive } from '../../../src/core/clouds/provider';
import { downWithProof, provision, type Bootstrap, type ProvisionEnv } from '../../../src/core/provision';
import { startGcpBed, REGION, type GcpBed, bedEnv, noBootstrap } from './helpers';

describe('gcp provider under the provision loop', function () {
  this.timeout(30_000);
  let bed: GcpBed;
  let store: StateStore;
  let env: ProvisionEnv;

  before(async () => {
    bed = await startGcpBed();
    ({ store, env } = await bedEnv(bed, bed.provider({ zones: { [REGION]: ['us-central1-a', 'us-central1-b'] } }), {
      launchGraceMs: 2000, pollMs: 50, runningTimeoutMs: 5000, confirmTimeoutMs: 3000, reissueAfterMs: 1000, transientRetries: 2, backoffMs: 50,
    }));
  });
  after(async () => {
    store?.close();
    await bed?.close();
  });

  it('fails over from an exhausted zone to the next, and downs with proof; nothing leaks', async () => {
    bed.fake.model.exhausted.add('us-central1-a');
    const res = await provision(env, {
      name: 'fo', numNodes: 2, placements: [{ cloud: 'gcp', region: REGION, instanceType: 'e2-standard-2', useSpot: false }],
      ports: [{ from: 8080, to: 8080 }], bootstrap: noBootstrap,
    });
    assert.ok(res.ok, res.error);
    assert.deepEqual(res.attempts.map((a) => [a.placement.zone, a.outcome, a.kind ?? '', a.cleanup]), [
      ['us-central1-a', 'failed', 'capacity', 'confirmed'], ['us-central1-b', 'up', '', 'not-needed'],
    ]);
    const row = res.row!;
    assert.equal(row.zone, 'us-central1-b');
    assert.match(row.head_address ?? '', /^203\.0\.113\./);
    const fw = bed.fake.model.firewalls.get(`skydeck-${row.uid}`) as { allowed: { ports: string[] }[] };
    assert.deepEqual([...fw.allowed[0].ports].sort(), ['22', '8080']);
    const owned = new Set((await store.read((db) => listClusters(db))).map((c) => c.uid));
    assert.deepEqual((await env.provider.listTagged()).instances.filter((i) => isLive(i.status) && !owned.has(i.tags[TAG_UID])), []);

    const down = await downWithProof(env, row);
    assert.ok(down.confirmed && down.deleted, down.reason);
    assert.equal(await store.read((db) => getCluster(db, 'fo')), undefined);
    assert.deepEqual((await env.provider.listTagged()).instances, []);
    assert.equal(bed.fake.model.firewalls.size, 0);
  });

  it('moves on when a zone lacks a machine type that exists elsewhere (g2 in few zones)', async () => {
    bed.fake.model.exhausted.clear();
    bed.fake.model.missingTypes.add('us-central1-a/g2-standard-4');
    const res = await provision(env, {
      name: 'l4', numNodes: 1, placements: [{ cloud: 'gcp', region: REGION, instanceType: 'g2-standard-4', useSpot: false }], bootstrap: noBootstrap,
    });
    assert.ok(res.ok, res.error);
    assert.deepEqual(res.attempts.map((a) => [a.placement.zone, a.kind ?? 'up']), [['us-central1-a', 'capacity'], ['us-central1-b', 'up']]);
    assert.match(res.attempts[0].reason ?? '', /does not exist in zone/);
    assert.ok((await downWithProof(env, res.row!)).deleted);
  });

  it('stops on a config error (no other zone is tried) and leaves nothing', async () => {
    const res = await provision(env, {
      name: 'bad', numNodes: 1, placements: [{ cloud: 'gcp', region: REGION, instanceType: 'n9-huge-1', useSpot: false }], bootstrap: noBootstrap,
    });
    assert.equal(res.ok, false);
    assert.deepEqual(res.attempts.map((a) => a.kind), ['config']);
    assert.deepEqual((await env.provider.listTagged()).instances, []);
  });
});
