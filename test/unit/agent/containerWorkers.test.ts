// A container cluster's workers in the agent (nodes.py), tested in Python (test_container_workers.py);
// this runs those tests and fails on any failure, error or skip, or when none ran.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { PY } from './helpers';

describe('agent workers in containers (Python unit tests)', function () {
  this.timeout(60000);

  it('test_container_workers.py: every test passes and none is skipped', () => {
    const r = spawnSync(PY, ['-B', '-m', 'unittest', 'discover', '-v', '-s', __dirname, '-p', 'test_container_workers.py'], {
      cwd: path.resolve(__dirname, '../../..'),
      encoding: 'utf8',
    });
    const out = `${r.stdout}${r.stderr}`;
    assert.equal(r.status, 0, out);
    const ran = /Ran (\d+) tests?/.exec(out);
    assert.ok(ran && Number(ran[1]) >= 5, `expected the container worker tests to run:\n${out}`);
    assert.doesNotMatch(out, /skipped|expected failure/i, out);
  });
});
