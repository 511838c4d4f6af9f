import assert from 'node:assert/strict';
import { classifyEnd, cloudHealth, placementOrder, recoveryPolicy } from '../../../src/core/managed';
import { parseJobRecovery } from '../../../src/core/task/autostop';
import type { InstanceInfo, InstanceStatus, Placement } from '../../../src/core/clouds/provider';

const p = (region: string): Placement => ({ cloud: 'aws', region, useSpot: true });
const regions = (ps: Placement[]) => ps.map((x) => x.region);
const inst = (id: string, status: InstanceStatus): InstanceInfo => ({ id, status, launchedAt: 0, tags: {} });

describe('managed job recovery', () => {
  it('job_recovery → policy with SkyPilot\'s defaults (FAILOVER, no restarts)', () => {
    assert.deepEqual(recoveryPolicy(undefined), { strategy: 'FAILOVER', maxRestartsOnErrors: 0, recoverOnExitCodes: [] });
    assert.deepEqual(recoveryPolicy(parseJobRecovery('eager_next_region')), { strategy: 'EAGER_NEXT_REGION', maxRestartsOnErrors: 0, recoverOnExitCodes: [] });
    assert.deepEqual(recoveryPolicy(parseJobRecovery({ max_restarts_on_errors: 2, recover_on_exit_codes: 33 })), { strategy: 'FAILOVER', maxRestartsOnErrors: 2, recoverOnExitCodes: [33] });
  });

  it('FAILOVER tries the preempted region first, EAGER_NEXT_REGION last', () => {
    const all = [p('r1'), p('r2'), p('r3')];
    assert.deepEqual(regions(placementOrder(all, 'FAILOVER', 'r2')), ['r2', 'r1', 'r3']);
    assert.deepEqual(regions(placementOrder(all, 'EAGER_NEXT_REGION', 'r1')), ['r2', 'r3', 'r1']);
    assert.deepEqual(regions(placementOrder(all, 'EAGER_NEXT_REGION', null)), ['r1', 'r2', 'r3']);
  });

  it('cloud health: every node running, else not running (naming what the cloud shows)', () => {
    assert.deepEqual(cloudHealth([inst('i-1', 'running')], 1), { kind: 'healthy' });
    const h = cloudHealth([inst('i-1', 'running'), inst('i-2', 'terminating')], 2);
    assert.equal(h.kind, 'not-running');
    assert.match((h as { why: string }).why, /1 of 2 node\(s\) running \(i-1 running, i-2 terminating\)/);
    assert.equal(cloudHealth([], 1).kind, 'not-running');
    assert.equal(cloudHealth([inst('i-1', 'stopped')], 1).kind, 'not-running');
    assert.equal(cloudHealth([inst('i-1', 'unknown')], 1).kind, 'unknown');
  });

  it('classifyEnd tells preemption from the user\'s failure from success', () => {
    const pol = recoveryPolicy({ maxRestartsOnErrors: 1, recoverOnExitCodes: [42] });
    const healthy = { kind: 'healthy' as const };
    const gone = { kind: 'not-running' as const, why: 'gone' };
    const unknown = { kind: 'unknown' as const, why: 'API down' };
    assert.equal(classifyEnd({ agent: { status: 'SUCCEEDED', exitCode: 0 }, cloud: gone }, pol, 0).kind, 'succeeded');
    assert.equal(classifyEnd({ agent: { status: 'RUNNING', exitCode: null }, cloud: gone }, pol, 0).kind, 'preempted');
    assert.equal(classifyEnd({ agent: { status: 'FAILED', exitCode: 1 }, cloud: gone }, pol, 0).kind, 'preempted');
    assert.equal(classifyEnd({ cloud: gone }, pol, 0).kind, 'preempted');
    assert.equal(classifyEnd({ cloud: healthy }, pol, 0).kind, 'unknown');
    assert.equal(classifyEnd({ agent: { status: 'FAILED', exitCode: 1 }, cloud: unknown }, pol, 0).kind, 'unknown');
    assert.equal(classifyEnd({ agent: { status: 'RUNNING', exitCode: null }, cloud: healthy }, pol, 0).kind, 'running');
    assert.deepEqual(classifyEnd({ agent: { status: 'FAILED', exitCode: 1 }, cloud: healthy }, pol, 0), {
      kind: 'user-failed', setup: false, restart: true, countsAsRestart: true, why: 'the job ended FAILED (exit code 1) on a healthy cluster',
    });
    const spent = classifyEnd({ agent: { status: 'FAILED_SETUP', exitCode: 3 }, cloud: healthy }, pol, 1);
    assert.equal(spent.kind === 'user-failed' && !spent.restart && spent.setup, true);
    const byCode = classifyEnd({ agent: { status: 'FAILED', exitCode: 42 }, cloud: healthy }, pol, 1);
    assert.equal(byCode.kind === 'user-failed' && byCode.restart && !byCode.countsAsRestart, true);
  });
});
