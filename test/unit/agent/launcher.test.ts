// The batch start of job drivers through the waiter's --launch mode (agent launcher.py,
// native/skydeck_launch.c), tested in Python (test_launcher.py) against real processes; this
// runs those tests and fails on any failure, error or skip, or when none ran.
import { assertPythonTests } from './helpers';

describe('agent launcher (batch driver start, Python unit tests)', function () {
  this.timeout(120000);

  it('test_launcher.py: every test passes and none is skipped', () => {
    assertPythonTests('test_launcher.py', 14, 'the launcher tests');
  });
});
