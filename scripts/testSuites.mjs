// The suites `npm test` runs (scripts/run-tests.mjs), each with its time limit. Under CI mocha
// runs --forbid-only: an it.only left in must fail the run, not pass it with the rest unrun.
export function testSuites({ ci, env = process.env }) {
  const forbidOnly = ci ? ['--forbid-only'] : [];
  const minutes = (n) => Number(env.SKYDECK_SUITE_TIMEOUT_MIN || n) * 60_000;
  // Mocha's reporter prints the result line at the very end: exiting takes no longer than this.
  const exitAfterResultMs = 120_000;
  return [
    // The spec list is given here, not only in .mocharc.json, so `npx mocha FILE` can run FILE alone.
    { name: 'unit + integration (mocha)', cmd: 'npx', args: ['mocha', ...forbidOnly, 'test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'], timeoutMs: minutes(60), exitAfterResultMs },
    { name: 'log panel page (headless Chromium)', cmd: 'npx', args: [...mochaAlone(ci), '--timeout', '120000', 'test/webview/**/*.test.ts'], timeoutMs: minutes(20), exitAfterResultMs },
    // Installs code-server 4.100.3 outside the repo on first use (apt packages included); under
    // CI it packages the .vsix and tests the extension installed from it.
    { name: 'VS Code: extension host + UI (code-server, Chromium)', cmd: 'node', args: ['scripts/vscode-test/run-all.mjs'], timeoutMs: minutes(60) },
  ];
}

/** mocha without .mocharc.json (whose spec list is the unit + integration suite). */
export function mochaAlone(ci) {
  return ['mocha', '--no-config', '--node-option', 'import=tsx', '--extension', 'ts', '--reporter', './test/support/countingReporter.cjs', ...(ci ? ['--forbid-only'] : [])];
}
