// Activation must not load a cloud SDK: importing a cloud's loader, the provider registry, Check
// Clouds, the catalog and the offline credential checks loads nothing of it; calling the
// loader does. Checked in a fresh Node process per cloud, as mocha's may have the SDKs already.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

interface Case {
  cloud: string;
  Cloud: string;
  sdk: string;
  /** An offline credential check run before the loader (none for AWS). */
  local?: string;
}

const CASES: Case[] = [
  { cloud: 'aws', Cloud: 'Aws', sdk: '@aws-sdk' },
  { cloud: 'gcp', Cloud: 'Gcp', sdk: '@google-cloud|google-auth-library|gaxios', local: `checkGcpLocal({ env: {}, gcloudConfigDir: '/nonexistent' })` },
  { cloud: 'azure', Cloud: 'Azure', sdk: '@azure[\\\\/]', local: `checkAzureLocal({ env: {}, azureConfigDir: '/nonexistent' })` },
];

const script = (c: Case) => `
const loaded = () => Object.keys(require.cache).filter((k) => /${c.sdk}/.test(k)).length;
const { load${c.Cloud} } = require('./src/core/clouds/${c.cloud}/load');
require('./src/core/clouds/registry').cloudProviders();
require('./src/core/clouds/check');
require('./src/core/catalog');
const local = ${c.local ? `require('./src/core/clouds/${c.cloud}/localCheck').${c.local}` : 'undefined'};
const before = loaded();
const m = load${c.Cloud}();
console.log(JSON.stringify({ local: local && local.fix, before, after: loaded(), factory: typeof m.create${c.Cloud}Provider, check: typeof m.check${c.Cloud} }));
`;

describe('clouds: lazy loading', () => {
  for (const c of CASES) {
    it(`${c.cloud}: loads its SDK only when load${c.Cloud}() is called`, function () {
      this.timeout(60_000);
      const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script(c)], { encoding: 'utf8', cwd: process.cwd() });
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
      assert.equal(out.before, 0, 'nothing of the SDK before the first use');
      assert.ok(out.after > 0, 'the SDK is there after it');
      assert.equal(out.factory, 'function');
      assert.equal(out.check, 'function');
      if (c.local) assert.ok(out.local, 'the local credential check runs without the SDK');
    });
  }
});
