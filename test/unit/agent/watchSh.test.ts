// The daemon's watch-mode sh script (agent watch.py), tested in Python (test_watch_sh.py)
// with a fake interpreter that records what the script execs back into; this runs those
// tests and fails on any failure, error or skip, or when they did not all run.
import { assertPythonTests } from './helpers';

describe('agent watch-mode sh and daemon wakes (Python unit tests)', function () {
  this.timeout(60000);

  it('test_watch_sh.py: every test passes and none is skipped', () => {
    assertPythonTests('test_watch_sh.py', 17, 'the watch sh tests');
  });
});
