// A cached catalog is read back as untrusted: too big, wrong cloud, or malformed entries are
// a miss or dropped, never a crash in the optimizer.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cachedCatalog, readCatalog, writeCatalog } from '../../../src/core/catalog/cache';
import { MAX_CATALOG_BYTES } from '../../../src/core/catalog/cacheCheck';

describe('cached catalog files are validated when read', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-catalog-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const good = { cloud: 'aws', name: 'm5.large', vcpus: 2, memoryGb: 8, price: 0.096 };

  it('keeps well-formed entries and drops malformed ones', () => {
    const f = path.join(dir, 'aws-us-east-1.json');
    const bad = [null, 5, { ...good, name: '' }, { ...good, vcpus: 'two' }, { ...good, price: -1 }, { ...good, gpus: { name: 'A100', count: 'x' } },
      { ...good, cloud: 'gcp' }, { ...good, arch: 'mips' }, { ...good, vcpus: 1e400 }];
    fs.writeFileSync(f, JSON.stringify({ cloud: 'aws', region: 'us-east-1', fetchedAt: Date.now(), types: [good, ...bad] }));
    assert.deepEqual(readCatalog(f, Date.now(), 3600_000, 'aws')?.types, [good]);
  });

  it('reads a file of another cloud, an oversized file, a directory or junk as a miss', () => {
    const f = path.join(dir, 'aws-us-east-1.json');
    writeCatalog(f, 'gcp', 'us-east-1', [{ ...good, cloud: 'gcp' }]);
    assert.equal(readCatalog(f, Date.now(), 3600_000, 'aws'), undefined);
    fs.writeFileSync(f, Buffer.alloc(MAX_CATALOG_BYTES + 1, 0x20));
    assert.equal(readCatalog(f), undefined);
    fs.writeFileSync(f, '{"types": [');
    assert.equal(readCatalog(f), undefined);
    fs.writeFileSync(f, 'null');
    assert.equal(readCatalog(f), undefined);
    fs.rmSync(f);
    fs.mkdirSync(f);
    assert.equal(readCatalog(f), undefined);
  });

  it('a poisoned cache is refetched instead of used', async () => {
    const f = path.join(dir, 'aws-us-east-1.json');
    fs.writeFileSync(f, JSON.stringify({ cloud: 'aws', region: 'us-east-1', fetchedAt: Date.now(), types: [{ name: 'x' }] }));
    let fetched = 0;
    const types = await cachedCatalog({ cloud: 'aws', region: 'us-east-1', dir, shipped: [], fetch: async () => (fetched++, [good]) });
    assert.equal(fetched, 1);
    assert.deepEqual(types.map((t) => t.name), ['m5.large']);
    assert.deepEqual(readCatalog(f, Date.now(), 3600_000, 'aws')?.types, [good]);
  });
});
