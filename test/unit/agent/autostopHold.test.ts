// A launch's autostop hold (agent autostop.py hold_seconds), tested in Python
// (test_autostop_hold.py) where it lives; this runs those tests and fails on any failure,
// error or skip, or when they did not all run.
import { assertPythonTests } from './helpers';

describe('agent autostop hold (Python unit tests)', function () {
  this.timeout(60000);

  it('test_autostop_hold.py: every test passes and none is skipped', () => {
    assertPythonTests('test_autostop_hold.py', 6, 'the hold tests');
  });
});
