// The head agent's autostop setting, one function for the launch's bootstrap, the lift of its
// hold and `skydeck autostop` (agentAutostop.ts).
import assert from 'node:assert/strict';
import { agentAutostop, LAUNCH_HOLD_SECONDS } from '../../../src/core/ops/agentAutostop';
import { NODE_MANAGED_STORE } from '../../../src/core/ops/controllerNode';

describe('agentAutostop', () => {
  const row = { name: 'c1', provider: 'aws', autostop_minutes: 0, autostop_down: 1 };

  it('the row\'s setting, with a launch\'s hold only when asked', () => {
    assert.deepEqual(agentAutostop(row, false), { idle_minutes: 0, down: true, action: 'shutdown' });
    assert.deepEqual(agentAutostop(row, false, LAUNCH_HOLD_SECONDS), { idle_minutes: 0, down: true, action: 'shutdown', hold_seconds: 1800 });
  });

  it('a controller cluster on a cloud keeps its managed-jobs store; none for no autostop or a cloud that never stops', () => {
    const ctl = { ...row, name: 'skydeck-jobs-0123abcd', autostop_down: 0 };
    assert.deepEqual(agentAutostop(ctl, false), { idle_minutes: 0, down: false, action: 'shutdown', managed_jobs_db: NODE_MANAGED_STORE });
    assert.equal(agentAutostop({ ...ctl, provider: 'kubernetes', autostop_down: 1 }, true)?.managed_jobs_db, undefined);
    assert.equal(agentAutostop({ ...row, autostop_minutes: null }, false), undefined);
    assert.equal(agentAutostop({ ...row, provider: 'ssh' }, false), undefined);
  });
});
