#!/usr/bin/env node
// Runs every test suite in turn and ends with one plain "N passed, N failed" line over all of
// them (CI reads only that line). Each suite runs as its own process group with a time limit
// (testSuites.mjs; SKYDECK_SUITE_TIMEOUT_MIN overrides every limit): a suite that crashes before reporting,
// overruns, prints its result but does not exit (a leaked handle), or leaves processes behind
// is ended and counted as a failure, by name. Under CI (see ci.mjs) mocha runs --forbid-only.
import { inCi } from './ci.mjs';
import { interrupted, runSuite } from './suiteRunner.mjs';
import { testSuites } from './testSuites.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Skydeck's per-user files (the index of live clusters, the managed-jobs controller) go to a
// scratch home for the whole run: tests must not see each other's there, nor the user's.
const userHome = mkdtempSync(join(tmpdir(), 'skydeck-test-home-'));
process.env.SKYDECK_HOME ??= join(userHome, 'skydeck');
process.env.SKYDECK_CONTROLLER_HOME ??= join(userHome, 'controller');
process.on('exit', () => rmSync(userHome, { recursive: true, force: true }));

const ci = inCi();
const suites = testSuites({ ci });

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
const started = Date.now();
if (ci) console.log('CI is set: a missing emulator, browser, sshd or code-server fails its tests; mocha runs --forbid-only');
for (const s of suites) {
  console.log(`\n=== ${s.name} ===`);
  const r = await runSuite(s);
  passed += r.passed;
  failed += r.failed;
  skipped += r.skipped;
  failures.push(...r.failures);
  if (interrupted()) {
    console.log(`!!! interrupted by ${interrupted()}: counted as 1 failure`);
    failed += 1;
    break;
  }
}
// Repeated here so that the tail of a long log names every failure.
if (failures.length) console.log(`\n${failures.join('\n')}`);
console.log(`\nall suites: ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed ? 1 : 0;
