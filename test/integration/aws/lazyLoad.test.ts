// Activation must not load a cloud SDK: importing the loader (and the catalog) loads nothing
// of @aws-sdk; calling it does. Checked in a fresh Node process, as mocha's already has the SDK.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const SCRIPT = `
const loaded = () => Object.keys(require.cache).filter((k) => k.includes('@aws-sdk')).length;
const { loadAws } = require('./src/core/clouds/aws/load');
require('./src/core/catalog');
const before = loaded();
const m = loadAws();
console.log(JSON.stringify({ before, after: loaded(), factory: typeof m.createAwsProvider, check: typeof m.checkAws }));
`;

describe('aws: lazy loading', () => {
  it('loads @aws-sdk only when loadAws() is called', function () {
    this.timeout(60_000);
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', SCRIPT], { encoding: 'utf8', cwd: process.cwd() });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
    assert.equal(out.before, 0, 'nothing of the SDK before the first use');
    assert.ok(out.after > 0, 'the SDK is there after it');
    assert.equal(out.factory, 'function');
    assert.equal(out.check, 'function');
  });
});
