import assert from 'node:assert/strict';
import { formatBytes, formatDuration, statusKind, statusParts } from '../../../webview-ui/logs/format';

describe('log page formatting', () => {
  it('formats durations', () => {
    assert.equal(formatDuration(0), '0s');
    assert.equal(formatDuration(59.9), '59s');
    assert.equal(formatDuration(65), '1m 05s');
    assert.equal(formatDuration(3 * 3600 + 7 * 60 + 9), '3h 07m');
    assert.equal(formatDuration(-5), '0s'); // clock skew between laptop and head node
  });

  it('formats sizes', () => {
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(1536), '1.5 KB');
    assert.equal(formatBytes(100 * 1024 * 1024), '100 MB');
  });

  it('classifies states', () => {
    assert.equal(statusKind('RUNNING'), 'running');
    assert.equal(statusKind('PENDING'), 'waiting');
    assert.equal(statusKind('SUCCEEDED'), 'succeeded');
    assert.equal(statusKind('FAILED_DRIVER'), 'failed');
    assert.equal(statusKind('CANCELLED'), 'cancelled');
  });

  it('shows state, duration, exit code and reason', () => {
    const s = statusParts({ status: 'FAILED', exitCode: 3, reason: 'OOM', startedAt: 100, endedAt: 165, final: true }, 1000);
    assert.deepEqual(s.parts, ['FAILED', '1m 05s', 'exit code 3', 'OOM']);
    const r = statusParts({ status: 'RUNNING', exitCode: null, reason: null, startedAt: 100, endedAt: null, final: false }, 110);
    assert.deepEqual(r.parts, ['RUNNING', '10s']);
    const unknown = statusParts({ status: '', exitCode: null, reason: null, startedAt: null, endedAt: null, final: false }, 0);
    assert.deepEqual([unknown.kind, unknown.parts], ['waiting', ['Following']]);
  });
});
