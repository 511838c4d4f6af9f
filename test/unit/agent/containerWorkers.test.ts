// A container cluster's workers in the agent (nodes.py), tested in Python (test_container_workers.py);
// this runs those tests and fails on any failure, error or skip, or when none ran.
import { assertPythonTests } from './helpers';

describe('agent workers in containers (Python unit tests)', function () {
  this.timeout(60000);

  it('test_container_workers.py: every test passes and none is skipped', () => {
    assertPythonTests('test_container_workers.py', 5, 'the container worker tests');
  });
});
