// Activation must not load the GCP SDK: importing the loader and running the local credential
// check load nothing of it; calling the loader does. Checked in a fresh Node process.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const SCRIPT = `
const loaded = () => Object.keys(require.cache).filter((k) => /@google-cloud|google-gax|google-auth-library/.test(k)).length;
const { loadGcp } = require('./src/core/clouds/gcp/load');
const local = require('./src/core/clouds/gcp/localCheck').checkGcpLocal({ env: {}, gcloudConfigDir: '/nonexistent' });
const before = loaded();
const m = loadGcp();
console.log(JSON.stringify({ local: local && local.fix, before, after: loaded(), factory: typeof m.createGcpProvider, check: typeof m.checkGcp }));
`;

describe('gcp: lazy loading', () => {
  it('loads @google-cloud/compute only when loadGcp() is called', function () {
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
