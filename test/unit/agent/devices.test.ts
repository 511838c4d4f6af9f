// The agent's per-device allocator, tested in Python (test_devices.py) where it lives; this runs
// those tests and fails on any failure, error or skip, or when none ran.
import { assertPythonTests } from './helpers';

describe('agent devices (allocator, Python unit tests)', function () {
  this.timeout(60000);

  it('test_devices.py: every test passes and none is skipped', () => {
    assertPythonTests('test_devices.py', 15, 'the allocator tests');
  });
});
