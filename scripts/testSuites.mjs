// The suites `npm test` runs (scripts/run-tests.mjs), each with its time limit and lane (the
// lanes run at the same time, the suites of a lane one after another). Under CI mocha runs
// --forbid-only: an it.only left in must fail the run, not pass it with the rest unrun.
export function testSuites({ ci, env = process.env }) {
  const forbidOnly = ci ? ['--forbid-only'] : [];
  const minutes = (n) => Number(env.SKYDECK_SUITE_TIMEOUT_MIN || n) * 60_000;
  // Mocha's reporter prints the result line at the very end: exiting takes no longer than this.
  const exitAfterResultMs = 120_000;
  return [
    // The unit + integration tree in two mocha processes, one per lane: the first takes the
    // files of MOCHA_FIRST, the second every other file (so a new file is never left out).
    // The spec lists are given here, not only in .mocharc.json, so `npx mocha FILE` can run FILE alone.
    { name: 'unit + integration, part 1 (mocha: containers, managed jobs, AWS, the Kubernetes kit, dist/)', lane: 0, cmd: 'npx', args: ['mocha', ...forbidOnly, ...MOCHA_FIRST], timeoutMs: minutes(45), exitAfterResultMs },
    // Installs code-server 4.100.3 outside the repo on first use (apt packages included); under
    // CI it packages the .vsix (a production build into dist/) and tests the extension
    // installed from it. After part 1 in its lane: the files that read dist/ are all there.
    { name: 'VS Code: extension host + UI (code-server, Chromium)', lane: 0, cmd: 'node', args: ['scripts/vscode-test/run-all.mjs'], timeoutMs: minutes(60) },
    { name: 'unit + integration, part 2 (mocha: the rest)', lane: 1, cmd: 'npx', args: ['mocha', ...forbidOnly, ...MOCHA_FIRST.flatMap((p) => ['--ignore', p]), ...MOCHA_ALL], timeoutMs: minutes(45), exitAfterResultMs },
    // After VS Code in the first lane. It reads no dist/, so it may go in either lane: whichever
    // ends first (CI at 1113fe2: part 2 took 1154 s, part 1 + VS Code 1107 s; earlier runs the reverse).
    { name: 'log panel page (headless Chromium)', lane: 0, cmd: 'npx', args: [...mochaAlone(ci), '--timeout', '120000', 'test/webview/**/*.test.ts'], timeoutMs: minutes(20), exitAfterResultMs },
  ];
}

/** Every mocha file of the unit + integration tree. */
export const MOCHA_ALL = ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'];

/**
 * Part 1 of the tree. Every file that uses the Kubernetes kit must be here: one kit per machine,
 * and a mocha process takes it down at its end (test/support/kitLifecycle.ts). So must every
 * file that reads dist/: the VS Code suite rebuilds it, after part 1 in the same lane, while
 * part 2 runs. The rest: long files that mostly wait (part 2 holds the bulk of the tree).
 */
export const MOCHA_FIRST = [
  // Mocha runs the files in this order: the kit's last, so that its start (up.sh, begun when
  // mocha loads the first kit file: kitLifecycle.ts) runs alongside the files before them.
  'test/integration/packaging/**/*.test.ts',
  'test/integration/bench/**/*.test.ts',
  'test/unit/managed/**/*.test.ts',
  'test/integration/aws/**/*.test.ts',
  'test/integration/containers/**/*.test.ts',
  'test/integration/managed/**/*.test.ts',
  // The fault proxy's own test needs no kit, but imports the kit's harness (the split's rule).
  'test/unit/support/kubeFaultProxy.test.ts',
  'test/unit/provision/kubernetesFaults.test.ts',
  'test/integration/kubernetes/**/*.test.ts',
];

/** mocha without .mocharc.json (whose spec list is the unit + integration suite). */
export function mochaAlone(ci) {
  return ['mocha', '--no-config', '--node-option', 'import=tsx', '--extension', 'ts', '--reporter', './test/support/countingReporter.cjs', ...(ci ? ['--forbid-only'] : [])];
}
