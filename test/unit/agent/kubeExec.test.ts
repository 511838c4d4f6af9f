// The agent's exec client into worker pods (framing, stream loop, workers config), tested in Python (test_kube_ws.py) where it lives; this runs
// those tests and fails on any failure, error or skip, or when none ran.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { PY } from './helpers';

describe('agent kube exec client (Python unit tests)', function () {
  this.timeout(60000);

  it('test_kube_ws.py: every test passes and none is skipped', () => {
    const r = spawnSync(PY, ['-B', '-m', 'unittest', 'discover', '-v', '-s', __dirname, '-p', 'test_kube_ws.py'], {
      cwd: path.resolve(__dirname, '../../..'),
      encoding: 'utf8',
    });
    const out = `${r.stdout}${r.stderr}`;
    assert.equal(r.status, 0, out);
    const ran = /Ran (\d+) tests?/.exec(out);
    assert.ok(ran && Number(ran[1]) >= 13, `expected the exec client tests to run:\n${out}`);
    assert.doesNotMatch(out, /skipped|expected failure/i, out);
  });
});
