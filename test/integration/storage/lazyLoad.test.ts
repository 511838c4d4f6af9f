// The bucket stores' SDKs load only when a bucket of that store is used: importing the storage
// library, the bucket registry and the bucket operations (what launch, down and the Storage
// section import) loads none of them; asking for a store loads that store's SDK alone. In a
// fresh Node process per store, as mocha's may have the SDKs already.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const SDK: Record<string, string> = { s3: '@aws-sdk[\\\\/]client-s3', gcs: '@google-cloud[\\\\/]storage', azure: '@azure[\\\\/]storage-blob' };
const LOCATION: Record<string, string> = { s3: '{ region: "us-east-1" }', gcs: '{ account: "p" }', azure: '{ account: "acct" }' };

const script = (store: string) => `
const count = (re) => Object.keys(require.cache).filter((k) => re.test(k)).length;
const all = { ${Object.entries(SDK).map(([k, v]) => `${k}: /${v}/`).join(', ')} };
require('./src/core/storage');
const { bucketStoreFor } = require('./src/core/storage/buckets');
require('./src/core/ops');
const before = Object.fromEntries(Object.entries(all).map(([k, re]) => [k, count(re)]));
const bs = bucketStoreFor('${store}', ${LOCATION[store]});
// The module is loaded; the SDK itself may wait for the first call, so make one that needs no network.
const mod = require('./src/core/storage/buckets/load').loadStoreModule('${store}');
console.log(JSON.stringify({ before, store: bs.store, exported: Object.keys(mod).length }));
`;

describe('storage: bucket store SDKs load lazily', () => {
  for (const store of Object.keys(SDK)) {
    it(`${store}: nothing of any store SDK is loaded by the core's imports; ${store}'s module loads on first use`, function () {
      this.timeout(60_000);
      const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script(store)], { encoding: 'utf8', cwd: process.cwd() });
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
      assert.deepEqual(out.before, { s3: 0, gcs: 0, azure: 0 }, 'no store SDK before the first use');
      assert.equal(out.store, store);
      assert.ok(out.exported > 0);
    });
  }
});
