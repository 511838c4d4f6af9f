// Every Instance.status value of the Compute v1 API (the discovery doc's enum, written down in
// test/fixtures/gcp/computeV1.ts: a value added there fails here until it is mapped) has a
// deliberate Skydeck status; anything else is "unknown", which the core never reads as gone,
// running or stopped. The GCE fake offers exactly the same set.
import * as assert from 'node:assert/strict';
import { GCE_STATUS, statusOf, wakeCall } from '../../../src/core/clouds/gcp/status';
import { isLive, type InstanceInfo } from '../../../src/core/clouds/provider';
import { waitUntil } from '../../../src/core/clouds/waitInstances';
import { reached } from '../../../src/core/provision';
import { GCE_STATUSES } from '../../support/fakes/gcpFake/lifecycle';
import { INSTANCE_STATUS_ENUM } from '../../fixtures/gcp/computeV1';

function specStatuses(): string[] {
  return [...INSTANCE_STATUS_ENUM].sort();
}

// What each value means to Skydeck, written out once more so a change to the table is a decision.
const EXPECTED: Record<string, string> = {
  PROVISIONING: 'pending', STAGING: 'pending', PENDING: 'pending', REPAIRING: 'pending', RUNNING: 'running',
  PENDING_STOP: 'stopping', STOPPING: 'stopping', SUSPENDING: 'stopping', DEPROVISIONING: 'stopping',
  TERMINATED: 'stopped', STOPPED: 'stopped', SUSPENDED: 'stopped',
};

describe('gcp status mapping (Instance.status, compute v1)', () => {
  it('covers exactly the Instance.status enum of the Compute v1 spec, and the fake offers the same set', () => {
    const spec = specStatuses();
    assert.equal(spec.length, 12, `parsed ${spec.join(',')}`);
    assert.deepEqual(Object.keys(GCE_STATUS).sort(), spec);
    assert.deepEqual([...GCE_STATUSES].sort(), spec);
  });

  it('maps every value deliberately', () => {
    for (const s of specStatuses()) assert.equal(statusOf(s), EXPECTED[s], s);
  });

  it('an unknown, empty or inherited name is "unknown", never pending/running/stopped', () => {
    for (const s of ['HIBERNATING', 'running', '', null, undefined, 'UNDEFINED_STATUS', 'toString', '__proto__']) assert.equal(statusOf(s), 'unknown', String(s));
  });

  it('"unknown" is live (not gone) and proves neither a stop nor a delete', () => {
    assert.equal(isLive('unknown'), true);
    assert.equal(reached('unknown', 'terminated'), false);
    assert.equal(reached('unknown', 'stopped'), false);
    // DEPROVISIONING is still listed: a stop may count it, a delete may not.
    assert.equal(reached(statusOf('DEPROVISIONING'), 'terminated'), false);
    assert.equal(reached(statusOf('DEPROVISIONING'), 'stopped'), true);
    assert.equal(reached(statusOf('STOPPED'), 'stopped'), true);
    assert.equal(reached(statusOf('REPAIRING'), 'stopped'), false);
  });

  it('waiting never reads "unknown" as running, stopped or terminated', async () => {
    const one: InstanceInfo[] = [{ id: 'a', status: 'unknown', launchedAt: 0, tags: {} }];
    for (const goal of ['running', 'stopped', 'terminated'] as const) {
      await assert.rejects(waitUntil(async () => one, goal, 'x', 30, 5), new RegExp(`not ${goal} after`), goal);
    }
  });

  it('wakes TERMINATED and STOPPED with start, SUSPENDED with resume, nothing else', () => {
    const woken = specStatuses().filter((s) => wakeCall(s)).map((s) => `${s}:${wakeCall(s)}`);
    assert.deepEqual(woken, ['STOPPED:start', 'SUSPENDED:resume', 'TERMINATED:start']);
    assert.equal(wakeCall('HIBERNATING'), undefined);
  });
});
