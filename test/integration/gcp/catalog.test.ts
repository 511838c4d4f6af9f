// The region's machine-type catalog: listed through the real Compute client from the fake,
// mapped to the catalog's types, cached on disk with its time, and used to pick by shape;
// the shipped table answers when the listing fails.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { providerFailure as failure } from '../../support/providerFailure';
import { GCP_SHIPPED } from '../../../src/core/catalog/gcpShipped';
import { pickMachine } from '../../../src/core/clouds/gcp/shape';
import { forbidden } from '../../support/fakes/gcpFake/bodies';
import { capMachineTypePages, machineTypeListings } from '../../support/fakes/gcpFake/machineTypes';
import { startGcpBed, runRequest, REGION, type GcpBed } from './helpers';

describe('gcp provider: machine-type catalog from the Compute fake', function () {
  this.timeout(30_000);
  let bed: GcpBed;
  let n = 0;
  before(async () => (bed = await startGcpBed()));
  after(async () => bed?.close());
  afterEach(() => {
    bed.fake.model.httpFaults.length = 0;
    capMachineTypePages(bed.fake.model, 500);
  });

  /** A fresh cache directory per test, so no test sees another's listing. */
  const freshDir = () => path.join(bed.dir, `catalog-${++n}`);
  const listings = () => machineTypeListings(bed.fake.model);
  const byShape = (zone: string, region: string, accelerator: string) => runRequest({
    zone, placement: { cloud: 'gcp', region, zone, useSpot: false }, resources: { accelerators: [{ name: accelerator, count: 1 }] },
  });

  it('lists one zone of the region (all pages), maps each type, skips deprecated ones, and caches the listing with its time', async () => {
    capMachineTypePages(bed.fake.model, 4); // 15 types: four pages the client must follow
    const dir = freshDir();
    const before = listings();
    const t0 = Date.now();
    const cat = await bed.provider({ catalogDir: dir }).catalog(REGION);
    assert.equal(listings() - before, 4, 'every page was read');
    const get = (name: string, gpu?: string) => cat.filter((t) => t.name === name && t.gpus?.name === gpu);
    assert.deepEqual(get('a2-highgpu-1g', 'A100'), [{
      cloud: 'gcp', name: 'a2-highgpu-1g', vcpus: 12, memoryGb: 85, arch: 'x86_64', currentGeneration: true,
      gpus: { name: 'A100', count: 1, memoryGb: 40 }, price: 3.67, spotPrice: 1.101, // both joined from the shipped table (machineTypes.list has no prices)
    }]);
    assert.deepEqual(get('a2-ultragpu-1g', 'A100-80GB')[0].gpus, { name: 'A100-80GB', count: 1, memoryGb: 80 }, 'not in the shipped table: still mapped');
    assert.equal(get('a2-ultragpu-1g', 'A100-80GB')[0].price, undefined, 'no shipped price to join');
    assert.deepEqual(get('a3-highgpu-8g', 'H100')[0].gpus, { name: 'H100', count: 8, memoryGb: 80 });
    assert.deepEqual(get('g2-standard-8', 'L4')[0].gpus, { name: 'L4', count: 1, memoryGb: 24 });
    assert.deepEqual([get('e2-standard-4')[0].vcpus, get('e2-standard-4')[0].memoryGb, get('e2-standard-4')[0].price], [4, 16, 0.134]);
    // N1: the plain row with its own price, plus the shipped rows that attach GPUs to it.
    assert.deepEqual(get('n1-standard-4').map((t) => [t.memoryGb, t.price, t.currentGeneration]), [[15, 0.19, false]]);
    assert.deepEqual(get('n1-standard-4', 'T4').map((t) => [t.gpus?.count, t.price, t.spotPrice]), [[1, 0.54, 0.197]]);
    assert.equal(get('n1-standard-8', 'V100').length, 1);
    assert.equal(cat.some((t) => t.name === 'n1-megamem-96'), false, 'deprecated types are skipped');
    // The controller's types: listed as GCP lists them, priced from the shipped table, and still named-only (no shape request picks them).
    assert.deepEqual(get('e2-small').map((t) => [t.vcpus, t.memoryGb, t.arch, t.price, t.namedOnly]), [[2, 2, 'x86_64', 0.0168, true]]);
    assert.deepEqual(get('t2a-standard-1').map((t) => [t.vcpus, t.memoryGb, t.arch, t.price, t.namedOnly]), [[1, 4, 'arm64', 0.0385, true]]);
    assert.equal(cat.some((t) => t.name === 'n2-standard-64'), false, 'only what the zone lists (n2-standard-64 is shipped, not listed)');

    const file = path.join(dir, `gcp-${REGION}.json`);
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { cloud: string; region: string; fetchedAt: number; types: { name: string; gpus?: unknown }[] };
    assert.deepEqual([saved.cloud, saved.region], ['gcp', REGION]);
    assert.ok(saved.fetchedAt >= t0 && saved.fetchedAt <= Date.now());
    assert.equal(saved.types.length, 14, 'the listing as fetched: no deprecated type, no attached-GPU rows');

    const again = await bed.provider({ catalogDir: dir }).catalog(REGION);
    assert.equal(listings() - before, 4, 'a second provider reads the cache: no request');
    assert.deepEqual(again, cat);
  });

  it('refetches a stale or unreadable cache', async () => {
    const dir = freshDir();
    const file = path.join(dir, `gcp-${REGION}.json`);
    fs.mkdirSync(dir, { recursive: true });
    const old = Date.now() - 8 * 24 * 3600_000;
    fs.writeFileSync(file, JSON.stringify({ cloud: 'gcp', region: REGION, fetchedAt: old, types: [{ cloud: 'gcp', name: 'stale-1', vcpus: 1, memoryGb: 1 }] }));
    const before = listings();
    const cat = await bed.provider({ catalogDir: dir }).catalog(REGION);
    assert.equal(listings() - before, 1);
    assert.ok(!cat.some((t) => t.name === 'stale-1') && cat.some((t) => t.name === 'a2-highgpu-1g'));
    assert.ok((JSON.parse(fs.readFileSync(file, 'utf8')) as { fetchedAt: number }).fetchedAt > old);

    fs.writeFileSync(file, '{"cloud":"gcp","types":[');
    const cat2 = await bed.provider({ catalogDir: dir }).catalog(REGION);
    assert.equal(listings() - before, 2, 'a corrupt file is a miss');
    assert.ok(cat2.some((t) => t.name === 'g2-standard-8'));
  });

  it('falls back to the shipped table when the listing fails, logs why, and still launches T4 on N1', async () => {
    const dir = freshDir();
    const lines: string[] = [];
    bed.fake.failNext('GET', /\/machineTypes$/, forbidden('compute.machineTypes.list', `projects/skydeck-test/zones/${REGION}-a`));
    const p = bed.provider({ catalogDir: dir, log: (m) => lines.push(m) });
    const cat = await p.catalog(REGION);
    assert.deepEqual(cat, [...GCP_SHIPPED]);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /^gcp catalog for us-central1: .*compute\.machineTypes\.list.*; using the shipped table$/);
    assert.equal(fs.existsSync(path.join(dir, `gcp-${REGION}.json`)), false, 'nothing cached from a failure');

    const req = byShape('us-central1-a', REGION, 'T4');
    const [id] = (await p.runInstances(req)).created;
    const i = bed.fake.model.instance('us-central1-a', id) as Record<string, any>;
    assert.equal(i.machineType, 'n1-standard-4');
    assert.deepEqual(i.guestAccelerators, [{ acceleratorType: 'zones/us-central1-a/acceleratorTypes/nvidia-tesla-t4', acceleratorCount: 1 }]);
    await p.terminateInstances({ uid: req.uid });
  });

  it('launches by shape from the fetched listing: A100 on a2, T4 attached to n1; a named type needs no listing', async () => {
    const dir = freshDir();
    const p = bed.provider({ catalogDir: dir });
    const before = listings();
    const named = runRequest({ zone: 'us-central1-b' });
    await p.runInstances(named);
    assert.equal(listings() - before, 0, 'instance_type given: nothing listed');
    assert.equal(fs.existsSync(path.join(dir, `gcp-${REGION}.json`)), false);

    const a100 = byShape('us-central1-a', REGION, 'A100');
    const t4 = byShape('us-central1-a', REGION, 'T4');
    const [a] = (await p.runInstances(a100)).created;
    const [b] = (await p.runInstances(t4)).created;
    assert.equal(listings() - before, 1, 'one listing serves the region');
    assert.ok(fs.existsSync(path.join(dir, `gcp-${REGION}.json`)));
    const ia = bed.fake.model.instance('us-central1-a', a) as Record<string, any>;
    assert.equal(ia.machineType, 'a2-highgpu-1g');
    assert.equal(ia.guestAccelerators, undefined, 'a2 GPUs are built in');
    const ib = bed.fake.model.instance('us-central1-a', b) as Record<string, any>;
    assert.equal(ib.machineType, 'n1-standard-4');
    assert.deepEqual(ib.guestAccelerators, [{ acceleratorType: 'zones/us-central1-a/acceleratorTypes/nvidia-tesla-t4', acceleratorCount: 1 }]);
    for (const r of [named, a100, t4]) await p.terminateInstances({ uid: r.uid });
  });

  it('a region whose listing has no A100 says so, where the shipped table would have picked a2', async () => {
    const region = 'europe-west4';
    const zone = 'europe-west4-a';
    assert.equal(pickMachine({ cloud: 'gcp', region, zone, useSpot: false }, { accelerators: [{ name: 'A100', count: 1 }] }).machineType, 'a2-highgpu-1g');
    const p = bed.provider({ catalogDir: freshDir() });
    const inserts = () => bed.fake.model.calls.filter((c) => c.method === 'POST' && /\/instances$/.test(c.path)).length;
    const before = inserts();
    const req = byShape(zone, region, 'A100');
    const e = await failure(p.runInstances(req));
    assert.equal(e.kind, 'capacity');
    assert.match(e.message, /no GCP machine type offers accelerators A100:1 in europe-west4/);
    assert.equal(inserts(), before, 'nothing inserted');
    assert.ok((await p.catalog(region)).some((t) => t.name === 'e2-standard-2'), 'the region has its own listing');
    await p.terminateInstances({ uid: req.uid });
  });
});
