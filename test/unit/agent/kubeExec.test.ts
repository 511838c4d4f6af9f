// The agent's exec client into worker pods (framing, stream loop, workers config), tested in Python (test_kube_ws.py) where it lives; this runs
// those tests and fails on any failure, error or skip, or when none ran.
import { assertPythonTests } from './helpers';

describe('agent kube exec client (Python unit tests)', function () {
  this.timeout(60000);

  it('test_kube_ws.py: every test passes and none is skipped', () => {
    assertPythonTests('test_kube_ws.py', 13, 'the exec client tests');
  });
});
