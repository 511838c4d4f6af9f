// Activation must not load the Azure SDK: importing the loader and running the local credential
// check load nothing of it; calling the loader does. Checked in a fresh Node process.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const SCRIPT = `
const loaded = () => Object.keys(require.cache).filter((k) => /@azure[\\/]/.test(k)).length;
const { loadAzure } = require('./src/core/clouds/azure/load');
const local = require('./src/core/clouds/azure/localCheck').checkAzureLocal({ env: {}, azureConfigDir: '/nonexistent' });
const before = loaded();
const m = loadAzure();
console.log(JSON.stringify({ local: local && local.fix, before, after: loaded(), factory: typeof m.createAzureProvider, check: typeof m.checkAzure }));
`;

describe('azure: lazy loading', () => {
  it('loads @azure/arm-* only when loadAzure() is called', function () {
    this.timeout(60_000);
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', SCRIPT], { encoding: 'utf8', cwd: process.cwd() });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
    assert.equal(out.before, 0, 'nothing of the SDK before the first use');
    assert.ok(out.after > 0, 'the SDK is there after it');
    assert.equal(out.factory, 'function');
    assert.equal(out.check, 'function');
    assert.ok(out.local, 'the local credential check runs without the SDK');
  });
});
