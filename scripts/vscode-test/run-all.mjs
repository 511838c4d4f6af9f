#!/usr/bin/env node
// Real-VS-Code tests, start to end: install code-server + Chromium if needed, build dist/ if it
// is missing, run the in-extension-host suites (test/vscode/runTests.ts) and the Playwright UI
// suites (test/vscode/ui/), then print ONE closing line summing them: "N passed, N failed".
// Exit code 1 on any failure, including a suite that dies before reporting.
//
//   node scripts/vscode-test/run-all.mjs [--skip-install] [--only=host|ui]
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const only = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const started = Date.now();
const secs = (t) => `${((Date.now() - t) / 1000).toFixed(1)} s`;
const COUNT = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/gm;

let passed = 0;
let failed = 0;
let skipped = 0;
const timings = [];

function run(cmd, args, { capture = true } = {}) {
  return new Promise((res) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'] });
    let tail = '';
    child.stdout?.on('data', (d) => {
      process.stdout.write(d);
      tail = (tail + d.toString()).slice(-8192);
    });
    const forward = (sig) => () => child.kill(sig);
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    child.on('error', (e) => {
      console.log(`!!! could not start ${cmd}: ${e.message}`);
    });
    child.on('close', (code, signal) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      res({ code: code ?? (signal ? 1 : 0), tail });
    });
  });
}

async function suite(name, cmd, args) {
  console.log(`\n=== ${name} ===`);
  const t = Date.now();
  const { code, tail } = await run(cmd, args);
  timings.push(`${name}: ${secs(t)}`);
  const m = [...tail.matchAll(COUNT)].pop();
  if (!m) {
    console.log(`!!! "${name}" ended (exit ${code}) without a result line: counted as 1 failure`);
    failed += 1;
    return;
  }
  passed += Number(m[1]);
  failed += Number(m[2]);
  skipped += Number(m[3] ?? 0);
  if (code !== 0 && Number(m[2]) === 0) {
    console.log(`!!! "${name}" exited ${code} with no failed test: counted as 1 failure`);
    failed += 1;
  }
}

async function main() {
  const suites = !only ? 2 : 1;
  if (!argv.includes('--skip-install') && !(process.platform === 'linux' && existsSync('/usr/bin/dpkg-query'))) {
    // The install is Debian's apt + code-server; elsewhere use `npx tsx test/vscode/runTests.ts`
    // (desktop VS Code, downloaded by @vscode/test-electron).
    console.log(`!!! SKIPPED: the code-server test setup needs Debian/Ubuntu (apt); this is ${process.platform}`);
    skipped += suites;
    return;
  }
  if (!argv.includes('--skip-install')) {
    console.log('=== install: code-server + chromium ===');
    const t = Date.now();
    const { code } = await run('bash', [join(ROOT, 'scripts/vscode-test/install-code-server.sh')]);
    timings.push(`install: ${secs(t)}`);
    if (code !== 0) {
      console.log('!!! install failed: the VS Code suites cannot run (counted as 1 failure)');
      failed += 1;
      return;
    }
  }
  if (!existsSync(join(ROOT, 'dist/extension.js'))) {
    console.log('\n=== build (dist/extension.js is missing) ===');
    const t = Date.now();
    const { code } = await run('npm', ['run', 'build'], { capture: false });
    timings.push(`build: ${secs(t)}`);
    if (code !== 0) {
      console.log('!!! npm run build failed (counted as 1 failure)');
      failed += 1;
      return;
    }
  }
  const tsx = join(ROOT, 'node_modules/.bin/tsx');
  const mocha = join(ROOT, 'node_modules/.bin/mocha');
  if (!only || only === 'host') {
    await suite('VS Code extension host (test/vscode/suite)', tsx, ['test/vscode/runTests.ts']);
  }
  if (!only || only === 'ui') {
    await suite('VS Code UI, Playwright (test/vscode/ui)', mocha, [
      '--no-config', '--node-option', 'import=tsx', '--extension', 'ts',
      '--reporter', './test/support/countingReporter.cjs', '--timeout', '120000',
      'test/vscode/ui/**/*.test.ts',
    ]);
  }
}

await main().catch((e) => {
  console.log(`!!! ${e.stack ?? e}`);
  failed += 1;
});
console.log(`\nvscode tests: ${timings.join(', ')}; total ${secs(started)}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed ? 1 : 0;
