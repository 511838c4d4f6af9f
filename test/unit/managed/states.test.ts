import assert from 'node:assert/strict';
import { MANAGED_STATUSES, TERMINAL, moveProblem, type ManagedStatus } from '../../../src/core/managed';

describe('managed job statuses', () => {
  it('are SkyPilot\'s eleven, six of them terminal', () => {
    assert.equal(MANAGED_STATUSES.length, 11);
    assert.deepEqual([...TERMINAL].sort(), ['CANCELLED', 'FAILED', 'FAILED_CONTROLLER', 'FAILED_NO_RESOURCE', 'FAILED_SETUP', 'SUCCEEDED']);
  });

  it('allow the forward moves of a job\'s life', () => {
    const path: ManagedStatus[] = ['PENDING', 'STARTING', 'RUNNING', 'RECOVERING', 'RUNNING', 'SUCCEEDED'];
    for (let i = 1; i < path.length; i++) assert.equal(moveProblem(path[i - 1], path[i]), undefined, `${path[i - 1]} → ${path[i]}`);
    assert.equal(moveProblem('RUNNING', 'CANCELLING'), undefined);
    assert.equal(moveProblem('CANCELLING', 'CANCELLED'), undefined);
    assert.equal(moveProblem('PENDING', 'CANCELLED'), undefined);
  });

  it('refuse every move backwards and every move out of a terminal status', () => {
    assert.match(moveProblem('RUNNING', 'PENDING')!, /cannot go back/);
    assert.match(moveProblem('STARTING', 'PENDING')!, /cannot go back/);
    assert.match(moveProblem('CANCELLING', 'RUNNING')!, /cannot go back/);
    assert.match(moveProblem('RECOVERING', 'STARTING')!, /cannot go back/);
    for (const t of TERMINAL) {
      for (const to of MANAGED_STATUSES) if (to !== t) assert.match(moveProblem(t, to)!, /already ended/, `${t} → ${to}`);
    }
  });
});
