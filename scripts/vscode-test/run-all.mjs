#!/usr/bin/env node
// Real-VS-Code tests, start to end: install code-server + Chromium if needed, build dist/ if it
// is missing, run the in-extension-host suites (test/vscode/runTests.ts) and the Playwright UI
// suites (test/vscode/ui/), then print ONE closing line summing them: "N passed, N failed".
// Exit code 1 on any failure, including a suite that dies before reporting.
//
// --packaged (the default under CI): first `npm run package`, install the .vsix into a scratch
// extensions dir with code-server, and run both kinds against that installed copy instead of
// the repo, so a file missing from the package fails the run. (Packaging runs the production
// build into dist/.) Under CI, VS Code suites that cannot run here are failures, not skips.
//
//   node scripts/vscode-test/run-all.mjs [--skip-install] [--only=host|ui] [--packaged]
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inCi } from '../ci.mjs';
import { interrupted, runSuite } from '../suiteRunner.mjs';
import { mochaAlone } from '../testSuites.mjs';
import { canInstallCodeServer, ensureCodeServer } from './install.mjs';
import { packageAndInstall } from './packaged.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const only = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const ci = inCi();
const packaged = argv.includes('--packaged') || ci;
const started = Date.now();
const secs = (t) => `${((Date.now() - t) / 1000).toFixed(1)} s`;

let passed = 0;
let failed = 0;
let skipped = 0;
const timings = [];

function run(cmd, args) {
  return new Promise((res) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', (e) => console.log(`!!! could not start ${cmd}: ${e.message}`));
    child.on('close', (code, signal) => res(code ?? (signal ? 1 : 0)));
  });
}

async function suite(name, cmd, args, env) {
  console.log(`\n=== ${name} ===`);
  const t = Date.now();
  const r = await runSuite({ name, cmd, args, cwd: ROOT, env });
  timings.push(`${name}: ${secs(t)}`);
  passed += r.passed;
  failed += r.failed;
  skipped += r.skipped;
}

async function main() {
  const suites = !only ? 2 : 1;
  if (!argv.includes('--skip-install') && !canInstallCodeServer()) {
    // The install is Debian's apt + code-server; elsewhere use `npx tsx test/vscode/runTests.ts`
    // (desktop VS Code, downloaded by @vscode/test-electron).
    const why = `the code-server test setup needs Debian/Ubuntu (apt); this is ${process.platform}`;
    if (ci) {
      console.log(`!!! ${why}: under CI the VS Code suites must run (counted as ${suites} failed)`);
      failed += suites;
    } else {
      console.log(`!!! SKIPPED: ${why}`);
      skipped += suites;
    }
    return;
  }
  if (!argv.includes('--skip-install')) {
    console.log('=== install: code-server + chromium ===');
    const t = Date.now();
    try {
      await ensureCodeServer();
    } catch (e) {
      console.log(`!!! install failed (${e.message}): the VS Code suites cannot run (counted as ${suites} failed)`);
      failed += suites;
      return;
    } finally {
      timings.push(`install: ${secs(t)}`);
    }
  }
  const env = { ...process.env };
  let scratch;
  if (packaged) {
    console.log('\n=== package: npm run package, then code-server --install-extension ===');
    const t = Date.now();
    try {
      const p = await packageAndInstall();
      scratch = p.scratch;
      env.SKYDECK_TEST_EXTENSION = p.extensionPath;
      console.log(`testing the extension installed from ${p.vsix}: ${p.extensionPath}`);
    } catch (e) {
      console.log(`!!! packaging failed (${e.message}): the VS Code suites cannot run (counted as ${suites} failed)`);
      failed += suites;
      return;
    } finally {
      timings.push(`package: ${secs(t)}`);
    }
  } else if (!existsSync(join(ROOT, 'dist/extension.js'))) {
    console.log('\n=== build (dist/extension.js is missing) ===');
    const t = Date.now();
    const code = await run('npm', ['run', 'build']);
    timings.push(`build: ${secs(t)}`);
    if (code !== 0) {
      console.log(`!!! npm run build failed (counted as ${suites} failed)`);
      failed += suites;
      return;
    }
  }
  try {
    const tsx = join(ROOT, 'node_modules/.bin/tsx');
    const mocha = join(ROOT, 'node_modules/.bin/mocha');
    if (!only || only === 'host') {
      await suite('VS Code extension host (test/vscode/suite)', tsx, ['test/vscode/runTests.ts'], env);
    }
    if ((!only || only === 'ui') && !interrupted()) {
      const [, ...mochaArgs] = mochaAlone(ci); // (--forbid-only under CI)
      await suite('VS Code UI, Playwright (test/vscode/ui)', mocha, [...mochaArgs, '--timeout', '120000', 'test/vscode/ui/**/*.test.ts'], env);
    }
  } finally {
    if (scratch && process.env.SKYDECK_TEST_KEEP !== '1') rmSync(scratch, { recursive: true, force: true });
  }
}

await main().catch((e) => {
  console.log(`!!! ${e.stack ?? e}`);
  failed += 1;
});
if (interrupted()) failed += 1;
console.log(`\nvscode tests: ${timings.join(', ')}; total ${secs(started)}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed ? 1 : 0;
