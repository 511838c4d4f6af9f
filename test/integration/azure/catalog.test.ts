// The location's VM-size catalog: read from the Resource SKUs API through the real ARM client
// (the local fake), mapped to the catalog's types, cached on disk with its time, and used to
// size a VM by shape; the shipped table answers when the listing fails.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { providerFailure as failure } from '../../support/providerFailure';
import { AZURE_SHIPPED } from '../../../src/core/catalog/azureShipped';
import { gpuOf } from '../../../src/core/clouds/azure/catalogFetch';
import { pickSize } from '../../../src/core/clouds/azure/vm';
import { authorizationFailed } from '../../support/fakes/azureFake/bodies';
import { SIZES } from '../../support/fakes/azureFake/model';
import { skuListings } from '../../support/fakes/azureFake/skus';
import { startAzureBed, runRequest, REGION, type AzureBed } from './helpers';

describe('azure provider: VM-size catalog from the ARM fake', function () {
  this.timeout(30_000);
  let bed: AzureBed;
  let n = 0;
  const A100 = 'Standard_NC24ads_A100_v4';
  before(async function () {
    bed = await startAzureBed(this);
    // The fake's create validates sizes against its own table; this one is only in the SKU listing.
    SIZES[A100] = { cores: 24, family: 'StandardNCADSA100v4Family' };
  });
  after(async () => {
    delete SIZES[A100];
    await bed?.close();
  });
  afterEach(() => (bed.fake.faults.length = 0));

  const freshDir = () => path.join(bed.dir, `catalog-${++n}`);
  const listings = () => skuListings(bed.fake.model);
  const byShape = (accelerator: string) => runRequest({
    placement: { cloud: 'azure', region: REGION, useSpot: false }, resources: { accelerators: [{ name: accelerator, count: 1 }] },
  });

  it('lists the location\'s VM sizes, maps capabilities, drops restricted and non-VM SKUs, and caches them with the time', async () => {
    const dir = freshDir();
    const before = listings();
    const t0 = Date.now();
    const cat = await bed.provider({ catalogDir: dir }).catalog(REGION);
    assert.equal(listings() - before, 1);
    const get = (name: string) => cat.find((t) => t.name === name);
    assert.deepEqual(get(A100), {
      cloud: 'azure', name: A100, vcpus: 24, memoryGb: 220, arch: 'x86_64', currentGeneration: true,
      gpus: { name: 'A100-80GB', count: 1, memoryGb: 80 }, price: 3.673, spotPrice: 1.4692, // both joined from the shipped table (Resource SKUs carry no prices)
    });
    assert.deepEqual(get('Standard_NC4as_T4_v3')?.gpus, { name: 'T4', count: 1, memoryGb: 16 });
    assert.deepEqual([get('Standard_D2s_v5')?.vcpus, get('Standard_D2s_v5')?.memoryGb, get('Standard_D2s_v5')?.price, get('Standard_D2s_v5')?.gpus], [2, 8, 0.096, undefined]);
    assert.equal(get('Standard_D4ps_v5')?.arch, 'arm64');
    assert.equal(get('Standard_D4ps_v5')?.price, undefined, 'not shipped: no price');
    assert.equal(get('Standard_NC6s_v3'), undefined, 'restricted for the subscription in eastus');
    assert.equal(get('Premium_LRS'), undefined, 'a disk SKU is not a VM size');
    assert.deepEqual(cat.map((t) => t.name).sort(), ['Standard_D2s_v5', 'Standard_D4ps_v5', 'Standard_D4s_v5', 'Standard_D8s_v5', A100, 'Standard_NC4as_T4_v3'].sort());

    const file = path.join(dir, `azure-${REGION}.json`);
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { cloud: string; region: string; fetchedAt: number; types: unknown[] };
    assert.deepEqual([saved.cloud, saved.region, saved.types.length], ['azure', REGION, 6]);
    assert.ok(saved.fetchedAt >= t0 && saved.fetchedAt <= Date.now());
    assert.deepEqual(await bed.provider({ catalogDir: dir }).catalog(REGION), cat);
    assert.equal(listings() - before, 1, 'a second provider reads the cache: no request');

    const west = await bed.provider({ catalogDir: dir }).catalog('westus2');
    assert.deepEqual(west.find((t) => t.name === 'Standard_NC6s_v3')?.gpus, { name: 'V100', count: 1, memoryGb: 16 }, 'not restricted in westus2');
    assert.ok(fs.existsSync(path.join(dir, 'azure-westus2.json')));
  });

  it('names the GPU of sizes the shipped table lacks by their family, and leaves unknown families alone', () => {
    assert.deepEqual(gpuOf('Standard_NC40ads_H100_v5'), { name: 'H100', memoryGb: 80 });
    assert.deepEqual(gpuOf('Standard_NV12ads_A10_v5'), { name: 'A10', memoryGb: 24 });
    assert.deepEqual(gpuOf('standard_nc8as_t4_v3'), { name: 'T4', memoryGb: 16 }, 'names are case-insensitive');
    assert.deepEqual(gpuOf('Standard_NC24s_v3'), { name: 'V100', memoryGb: 16 }, 'shipped');
    assert.equal(gpuOf('Standard_NC24ads_A100_v4')?.name, 'A100-80GB', 'shipped naming wins');
    assert.equal(gpuOf('Standard_NG32ads_V620_v1'), undefined);
  });

  it('refetches a stale or unreadable cache', async () => {
    const dir = freshDir();
    const file = path.join(dir, `azure-${REGION}.json`);
    fs.mkdirSync(dir, { recursive: true });
    const old = Date.now() - 8 * 24 * 3600_000;
    fs.writeFileSync(file, JSON.stringify({ cloud: 'azure', region: REGION, fetchedAt: old, types: [{ cloud: 'azure', name: 'Standard_Old', vcpus: 1, memoryGb: 1 }] }));
    const before = listings();
    const cat = await bed.provider({ catalogDir: dir }).catalog(REGION);
    assert.equal(listings() - before, 1);
    assert.ok(!cat.some((t) => t.name === 'Standard_Old') && cat.some((t) => t.name === A100));
    assert.ok((JSON.parse(fs.readFileSync(file, 'utf8')) as { fetchedAt: number }).fetchedAt > old);
    fs.writeFileSync(file, 'not json');
    await bed.provider({ catalogDir: dir }).catalog(REGION);
    assert.equal(listings() - before, 2, 'a corrupt file is a miss');
  });

  it('falls back to the shipped table when the listing fails, logs why, and still sizes a T4 VM', async () => {
    const dir = freshDir();
    const lines: string[] = [];
    bed.fake.failNext('GET', /\/providers\/Microsoft\.Compute\/skus$/, authorizationFailed('Microsoft.Compute/skus/read', `/subscriptions/${bed.fake.model.subscription}`));
    const p = bed.provider({ catalogDir: dir, log: (m) => lines.push(m) });
    assert.deepEqual(await p.catalog(REGION), [...AZURE_SHIPPED]);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /^azure catalog for eastus: .*AuthorizationFailed.*; using the shipped table$/);
    assert.equal(fs.existsSync(path.join(dir, `azure-${REGION}.json`)), false, 'nothing cached from a failure');

    const req = byShape('T4');
    await p.runInstances(req);
    assert.deepEqual((await p.queryInstances({ uid: req.uid })).map((i) => i.instanceType), ['Standard_NC4as_T4_v3']);
    await p.terminateInstances({ uid: req.uid });
  });

  it('sizes a VM by shape from the fetched listing; a restricted size is not offered; a named size needs no listing', async () => {
    const dir = freshDir();
    const p = bed.provider({ catalogDir: dir });
    const before = listings();
    const named = runRequest();
    await p.runInstances(named);
    assert.equal(listings() - before, 0, 'instance_type given: nothing listed');

    const a100 = byShape('A100-80GB');
    await p.runInstances(a100);
    assert.equal(listings() - before, 1);
    const [vm] = await p.queryInstances({ uid: a100.uid });
    assert.equal(vm.instanceType, A100);
    const inFake = bed.fake.model.vms().find((v) => v.name === vm.id) as { properties: { hardwareProfile: { vmSize: string } } };
    assert.equal(inFake.properties.hardwareProfile.vmSize, A100);

    // NC6s_v3 (V100) is shipped, but the subscription may not deploy it in eastus.
    assert.equal(pickSize({ cloud: 'azure', region: REGION, useSpot: false }, { accelerators: [{ name: 'V100', count: 1 }] }), 'Standard_NC6s_v3');
    const v100 = byShape('V100');
    const e = await failure(p.runInstances(v100));
    assert.equal(e.kind, 'capacity');
    assert.match(e.message, /no Azure VM size offers accelerators V100:1 in eastus/);
    assert.equal(listings() - before, 1, 'the location is listed once per provider');
    for (const r of [named, a100, v100]) await p.terminateInstances({ uid: r.uid });
  });
});
