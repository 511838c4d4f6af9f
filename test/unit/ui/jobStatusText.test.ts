// Issue 19: job rows say their status in words; the job-end notification says how it ended.
import assert from 'node:assert/strict';
import { endNotice, jobDescription, statusWords } from '../../../src/ui/jobStatusText';

const facts = (status: string, exitCode: number | null = null, reason: string | null = null) => ({ status, exitCode, reason });

describe('issue 19: job status in words', () => {
  it('issue 19: the row description leads with the status, the exit code of a failure, then how long and who', () => {
    const row = (status: string, exitCode: number | null, startedAt: number | null, endedAt: number | null) =>
      jobDescription({ ...facts(status, exitCode), startedAt, endedAt, user: 'ana' }, 1000);
    assert.equal(row('RUNNING', null, 877, null), 'RUNNING · 2m 3s · ana');
    assert.equal(row('SUCCEEDED', 0, 990, 994), 'SUCCEEDED · 4s · ana');
    assert.equal(row('FAILED', 1, 990, 991), 'FAILED (exit 1) · 1s · ana');
    assert.equal(row('FAILED_SETUP', 2, 990, 991), 'FAILED_SETUP (exit 2) · 1s · ana');
    assert.equal(row('FAILED_DRIVER', null, 100, 7400), 'FAILED_DRIVER · 2h 1m · ana');
    assert.equal(row('PENDING', null, null, null), 'PENDING · ana');
    assert.equal(statusWords(facts('FAILED')), 'FAILED', 'no exit code known: none invented');
  });

  it('issue 19: the notification says succeeded, failed with the exit code, FAILED_DRIVER with its reason, cancelled', () => {
    assert.deepEqual(endNotice('dev #3 train', facts('SUCCEEDED', 0)), { level: 'info', message: 'Skydeck: dev #3 train succeeded.' });
    assert.deepEqual(endNotice('dev #3', facts('FAILED', 1, 'run exited with code 1')), { level: 'error', message: 'Skydeck: dev #3 failed (exit 1).' });
    assert.deepEqual(endNotice('dev #3', facts('FAILED', null, 'killed by signal 9')), { level: 'error', message: 'Skydeck: dev #3 failed: killed by signal 9.' });
    assert.deepEqual(endNotice('dev #3', facts('FAILED_SETUP', 4)), { level: 'error', message: 'Skydeck: dev #3 failed in setup (exit 4).' });
    assert.deepEqual(endNotice('dev #3', facts('FAILED_DRIVER', null, 'driver process 42 is gone')),
      { level: 'error', message: 'Skydeck: dev #3 ended FAILED_DRIVER: driver process 42 is gone.' });
    assert.deepEqual(endNotice('dev #3', facts('CANCELLED')), { level: 'warning', message: 'Skydeck: dev #3 was cancelled.' });
  });

  it('issue 19: a reason from the node is one bounded line (newlines, escapes and 1 MB of it)', () => {
    const n = endNotice('dev #3', facts('FAILED_DRIVER', null, `line1\nline2\r\x1b[31mred\x00${'x'.repeat(1_000_000)}`));
    assert.doesNotMatch(n.message, /[\n\r\x00\x1b]/);
    assert.ok(n.message.length < 400, `${n.message.length} characters`);
    assert.match(n.message, /^Skydeck: dev #3 ended FAILED_DRIVER: line1 line2 \[31mred x+….$/);
  });
});
