// Choosing an instance type for task resources: the shipped table (no network), the fetched
// DescribeInstanceTypes listing and its on-disk cache (moto).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AWS_SHIPPED, chooseType, readCatalog, catalogPath } from '../../../src/core/catalog';
import { parseAccelerator } from '../../../src/core/task';
import { parseCpus, parseMemory } from '../../../src/core/task/quantities';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { skipWithoutMoto } from '../../support/moto';
import { REGION, runRequest, startBed, type AwsBed } from './helpers';

function ok<T>(r: { ok: true; value: T } | { ok: false }): T {
  assert.ok(r.ok);
  return (r as { value: T }).value;
}
const cpus = (s: string) => ok(parseCpus(s));
const mem = (s: string) => ok(parseMemory(s));
const acc = (s: string) => ok(parseAccelerator(s));

describe('catalog: choosing an AWS instance type (shipped table)', () => {
  const pick = (req: Parameters<typeof chooseType>[1]) => chooseType(AWS_SHIPPED, req)?.name;

  it('resolves common accelerators without network, cheapest first', () => {
    assert.equal(pick({ accelerator: acc('V100:1') }), 'p3.2xlarge');
    assert.equal(pick({ accelerator: acc('V100') }), 'p3.2xlarge');
    assert.equal(pick({ accelerator: acc('A100:8') }), 'p4d.24xlarge');
    assert.equal(pick({ accelerator: acc('H100:8') }), 'p5.48xlarge');
    assert.equal(pick({ accelerator: acc('T4') }), 'g4dn.xlarge');
    assert.equal(pick({ accelerator: acc('L4:0.25') }), 'g6.xlarge', 'a fraction needs one whole GPU on the node');
    assert.equal(pick({ accelerator: acc('A10G:4') }), 'g5.12xlarge');
    assert.equal(pick({ accelerator: acc('T4'), cpus: cpus('16+') }), 'g4dn.4xlarge');
    assert.equal(pick({ accelerator: acc('80GB+:8') }), 'p4de.24xlarge');
    assert.equal(pick({ accelerator: acc('V100:2') }), undefined, 'no AWS type has exactly 2 V100s');
  });

  it('fits cpus and memory ("N" exact, "N+" at least), never handing out a GPU unasked', () => {
    assert.equal(pick({}), 'm6i.2xlarge', 'the default shape: 8+ vCPUs, 32+ GB');
    assert.equal(pick({ cpus: cpus('4+') }), 'c6i.xlarge');
    assert.equal(pick({ cpus: cpus('4'), memory: mem('32+') }), 'r6i.xlarge');
    assert.equal(pick({ cpus: cpus('2'), memory: mem('8') }), 't3.large');
    assert.equal(pick({ cpus: cpus('3') }), undefined);
    assert.ok(!chooseType(AWS_SHIPPED, { cpus: cpus('64+') })?.gpus);
  });
});

describe('catalog: DescribeInstanceTypes on the EC2 emulator', function () {
  this.timeout(90_000);
  let bed: AwsBed;

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
  });
  after(async () => bed?.close());

  it('fetches every type with vCPUs / memory / GPUs, caches it with a timestamp, and reuses the cache', async () => {
    const types = await bed.provider().catalog(REGION);
    assert.ok(types.length > 500, `moto lists ${types.length} types`);
    const g4 = types.find((t) => t.name === 'g4dn.xlarge');
    assert.deepEqual([g4?.vcpus, g4?.memoryGb, g4?.gpus?.name, g4?.gpus?.count, g4?.gpus?.memoryGb, g4?.price], [4, 16, 'T4', 1, 16, 0.526]);
    const file = catalogPath(path.join(bed.dir, 'catalog'), 'aws', REGION);
    const cached = readCatalog(file);
    assert.ok(cached && Date.now() - cached.fetchedAt < 60_000);
    const calls = bed.proxy.count('DescribeInstanceTypes');
    assert.ok(calls >= 1);
    await bed.provider().catalog(REGION);
    assert.equal(bed.proxy.count('DescribeInstanceTypes'), calls, 'a second provider reads the cache');
    assert.ok(fs.statSync(file).size > 10_000);
  });

  it('launches the chosen type when the task names resources but no instance type', async () => {
    const p = bed.provider();
    const req = runRequest();
    delete req.placement.instanceType;
    // moto lists today's types: p3.2xlarge (V100:1) is retired there, so V100:1 has no fit.
    req.placement.resources = { accelerators: [acc('V100:1'), acc('T4:1')] };
    await p.runInstances(req);
    const q = await p.queryInstances({ uid: req.uid, region: REGION });
    assert.deepEqual(q.map((i) => [i.instanceType, i.tags[TAG_UID]]), [['g4dn.xlarge', req.uid]]);
    assert.equal(q[0].costPerHour, 0.526);
    await p.terminateInstances({ uid: req.uid, region: REGION });
  });
});
