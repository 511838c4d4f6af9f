// A launch's autostop hold (agent autostop.py hold_seconds), tested in Python
// (test_autostop_hold.py) where it lives; this runs those tests and fails on any failure,
// error or skip, or when they did not all run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { PY } from './helpers';

describe('agent autostop hold (Python unit tests)', function () {
  this.timeout(60000);

  it('test_autostop_hold.py: every test passes and none is skipped', () => {
    const r = spawnSync(PY, ['-B', '-m', 'unittest', 'discover', '-v', '-s', __dirname, '-p', 'test_autostop_hold.py'], {
      cwd: path.resolve(__dirname, '../../..'),
      encoding: 'utf8',
    });
    const out = `${r.stdout}${r.stderr}`;
    assert.equal(r.status, 0, out);
    const ran = /Ran (\d+) tests?/.exec(out);
    assert.ok(ran && Number(ran[1]) >= 6, `expected the hold tests to run:\n${out}`);
    assert.doesNotMatch(out, /skipped|expected failure/i, out);
  });
});
