// Mocha's spec output, plus the plain closing line CI reads: "N passed, N failed[, N skipped]".
// Skipped tests are reported separately and never counted as passed. Each failure is repeated
// as one "FAILED: title: message" line just above the result line, so a log cut to its tail
// still names what failed (run-tests.mjs gathers these lines over all suites). Above those, the
// slowest test files by wall time, hooks included (fileTimes.cjs): where the suite's time goes.
'use strict';
const Mocha = require('mocha');
const { FileTimes } = require('./fileTimes.cjs');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;
const SLOWEST_FILES = 25;

// The message's first lines (an assertion's own message may be a whole stderr) and where in the
// test it failed: a CI log cut to its tail must be enough to tell which check broke and why.
function oneLine(err) {
  const lines = String((err && (err.message || err)) || 'no message').split('\n').map((l) => l.trim()).filter(Boolean);
  const msg = lines.slice(0, 4).join(' ⏎ ').slice(0, 600);
  const at = String((err && err.stack) || '').match(/test\/[^\s():]*\.(test|fixture)\.[cm]?[jt]s:\d+(:\d+)?/);
  const where = at ? at[0] : '';
  return where ? `${msg} (${where})` : msg;
}

class CountingReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    const failed = [];
    const times = new FileTimes();
    runner.on(EVENT_SUITE_BEGIN, (suite) => times.suiteStart(suite));
    runner.on(EVENT_SUITE_END, (suite) => times.suiteEnd(suite));
    runner.on(EVENT_TEST_FAIL, (test, err) => failed.push(`FAILED: ${test.fullTitle()}: ${oneLine(err)}`));
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats || { passes: 0, failures: 0, pending: 0 };
      const skipped = s.pending ? `, ${s.pending} skipped` : '';
      // Written after Spec's epilogue so the result line is the last line.
      const slow = times.slowest(SLOWEST_FILES);
      const heavy = times.heaviest(SLOWEST_FILES);
      const files = (slow.length ? `\nslowest test files (wall time, hooks included):\n${slow.join('\n')}\n` : '') +
        (heavy.length ? `\nmost CPU (the run's cgroup, every process it started):\n${heavy.join('\n')}\n` : '');
      const list = failed.length ? `\n${failed.join('\n')}\n` : '';
      process.stdout.write(`${files}${list}\n${s.passes} passed, ${s.failures} failed${skipped}\n`);
    });
  }
}
module.exports = CountingReporter;
