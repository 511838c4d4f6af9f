#!/usr/bin/env node
// Runs every test suite in turn and ends with one plain "N passed, N failed" line over all of
// them (CI reads only that line). A suite that crashes before reporting counts as a failure.
import { spawn } from 'node:child_process';

const mochaAlone = ['mocha', '--no-config', '--node-option', 'import=tsx', '--extension', 'ts', '--reporter', './test/support/countingReporter.cjs'];
const suites = [
  // .mocharc.json names no spec, so `npx mocha FILE` runs just FILE; the full list is here.
  { name: 'unit + integration (mocha)', cmd: 'npx', args: ['mocha', 'test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'] },
  { name: 'log panel page (headless Chromium)', cmd: 'npx', args: [...mochaAlone, '--timeout', '120000', 'test/webview/**/*.test.ts'] },
  // Installs code-server 4.100.3 outside the repo on first use (apt packages included).
  { name: 'VS Code: extension host + UI (code-server, Chromium)', cmd: 'node', args: ['scripts/vscode-test/run-all.mjs'] },
];

let passed = 0;
let failed = 0;
let skipped = 0;
const started = Date.now();
for (const s of suites) {
  console.log(`\n=== ${s.name} ===`);
  const { code, tail } = await run(s.cmd, s.args);
  const m = [...tail.matchAll(/^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/gm)].pop();
  if (!m) {
    console.log(`!!! suite "${s.name}" ended (exit ${code}) without a result line: counted as 1 failure`);
    failed += 1;
    continue;
  }
  passed += Number(m[1]);
  failed += Number(m[2]);
  skipped += Number(m[3] ?? 0);
  if (code !== 0 && Number(m[2]) === 0) {
    console.log(`!!! suite "${s.name}" exited ${code} with no failed test: counted as 1 failure`);
    failed += 1;
  }
}
console.log(`\nall suites: ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed ? 1 : 0;

function run(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let tail = '';
    child.stdout.on('data', (d) => {
      process.stdout.write(d);
      tail = (tail + d.toString()).slice(-4096);
    });
    child.on('close', (code) => resolve({ code, tail }));
  });
}
