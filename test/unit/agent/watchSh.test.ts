// The daemon's watch-mode sh script (agent watch.py), tested in Python (test_watch_sh.py)
// with a fake interpreter that records what the script execs back into; this runs those
// tests and fails on any failure, error or skip, or when they did not all run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { PY } from './helpers';

describe('agent watch-mode sh and daemon wakes (Python unit tests)', function () {
  this.timeout(60000);

  it('test_watch_sh.py: every test passes and none is skipped', () => {
    const r = spawnSync(PY, ['-B', '-m', 'unittest', 'discover', '-v', '-s', __dirname, '-p', 'test_watch_sh.py'], {
      cwd: path.resolve(__dirname, '../../..'),
      encoding: 'utf8',
    });
    const out = `${r.stdout}${r.stderr}`;
    assert.equal(r.status, 0, out);
    const ran = /Ran (\d+) tests?/.exec(out);
    assert.ok(ran && Number(ran[1]) >= 18, `expected the watch sh tests to run:\n${out}`);
    assert.doesNotMatch(out, /skipped|expected failure/i, out);
  });
});
