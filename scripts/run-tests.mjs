#!/usr/bin/env node
// Runs every test suite and ends with one plain "N passed, N failed" line over all of them (CI
// reads only that line). Each suite runs as its own process group with a time limit
// (testSuites.mjs; SKYDECK_SUITE_TIMEOUT_MIN overrides every limit): a suite that crashes before reporting,
// overruns, prints its result but does not exit (a leaked handle), or leaves processes behind
// is ended and counted as a failure, by name. Under CI (see ci.mjs) mocha runs --forbid-only.
//
// Suites run in lanes (testSuites.mjs: `lane`): the suites of one lane one after another, the
// lanes at the same time. Most suites mostly wait (sshd hosts, emulators, the Kubernetes kit, a
// browser), so two lanes use a 2-core machine that one left half idle. The first lane's output
// is shown as it comes; another lane's is held and shown whole when that suite ends, so suites
// never interleave. SKYDECK_TEST_LANES=1 runs every suite in one lane, one after another.
import { inCi } from './ci.mjs';
import { interrupted, runSuite } from './suiteRunner.mjs';
import { testSuites } from './testSuites.mjs';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Skydeck's per-user files (the index of live clusters, the managed-jobs controller) go to a
// scratch home: tests must not see each other's there, nor the user's. Suites that run at the
// same time get one each (unless the caller named one).
const userHome = mkdtempSync(join(tmpdir(), 'skydeck-test-home-'));
process.on('exit', () => rmSync(userHome, { recursive: true, force: true }));
function suiteEnv(i) {
  const home = join(userHome, String(i));
  mkdirSync(home, { recursive: true });
  return {
    ...process.env,
    SKYDECK_HOME: process.env.SKYDECK_HOME ?? join(home, 'skydeck'),
    SKYDECK_CONTROLLER_HOME: process.env.SKYDECK_CONTROLLER_HOME ?? join(home, 'controller'),
    // A CLI run by a test that names no holder dir must not start (or use) the user's own
    // connection holder in ~/.skydeck/run; one started here leaves once this dir is removed.
    SKYDECK_HOLDER_DIR: process.env.SKYDECK_HOLDER_DIR ?? join(home, 'holder'),
  };
}

const ci = inCi();
const oneLane = process.env.SKYDECK_TEST_LANES === '1';
const suites = testSuites({ ci }).map((s, i) => ({ ...s, env: suiteEnv(i), lane: oneLane ? 0 : (s.lane ?? 0) }));
const lanes = [...new Set(suites.map((s) => s.lane))].sort((a, b) => a - b).map((l) => suites.filter((s) => s.lane === l));

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
const timings = [];
const started = Date.now();
const secs = (t) => `${((Date.now() - t) / 1000).toFixed(1)} s`;
if (ci) console.log('CI is set: a missing emulator, browser, sshd or code-server fails its tests; mocha runs --forbid-only');
if (lanes.length > 1) console.log(`${lanes.length} lanes at once: ${lanes.map((l) => l.map((s) => s.name).join(' → ')).join(' | ')}`);

async function runLane(lane, live) {
  for (const s of lane) {
    if (interrupted()) return;
    const t = Date.now();
    let r;
    if (live) {
      console.log(`\n=== ${s.name} ===`);
      r = await runSuite(s);
    } else {
      // Held until the suite ends, then shown whole (its own lines and ours about it).
      const held = [];
      r = await runSuite(s, { log: (l) => held.push(Buffer.from(`${l}\n`)), output: (d) => held.push(Buffer.from(d)), errors: (d) => held.push(Buffer.from(d)) });
      process.stdout.write(`\n=== ${s.name} (ran alongside; output held until it ended) ===\n`);
      process.stdout.write(Buffer.concat(held));
    }
    timings.push(`${s.name}: ${secs(t)}`);
    passed += r.passed;
    failed += r.failed;
    skipped += r.skipped;
    failures.push(...r.failures);
  }
}

await Promise.all(lanes.map((lane, i) => runLane(lane, i === 0)));
if (interrupted()) {
  console.log(`!!! interrupted by ${interrupted()}: counted as 1 failure`);
  failed += 1;
}
// Repeated here so that the tail of a long log names every failure.
if (failures.length) console.log(`\n${failures.join('\n')}`);
console.log(`\n${timings.join('\n')}`);
console.log(`all suites: ${secs(started)}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed ? 1 : 0;
