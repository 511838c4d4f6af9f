#!/usr/bin/env node
// Stands in for a VS Code executable: @vscode/test-electron's runTests({vscodeExecutablePath})
// spawns it with the flags it would give `code`, e.g.
//   --no-sandbox --disable-updates --extensionTestsPath=/abs/index.js
//   --extensionDevelopmentPath=/abs/ext <workspace> --user-data-dir=… --extensions-dir=…
// and it runs those tests in a real VS Code extension host: code-server on a free loopback port
// (own process group, scratch XDG dirs) and its workbench in headless Debian Chromium. The
// extension host's console output is printed on stdout; the exit code is the tests' code, which
// the workbench hands to window.codeAutomationExit when the test runner ends.
//
// Env: SKYDECK_TEST_TIMEOUT_MS (default 300000), SKYDECK_TEST_VERBOSE=1 (also print the
// workbench's own console), SKYDECK_TEST_KEEP=1 (keep the scratch dir), SKYDECK_CODE_SERVER,
// SKYDECK_TEST_CACHE, SKYDECK_CHROMIUM (see codeServer.mjs). Everything else in the environment
// reaches the extension host (set it on this process: the URL payload's env is ignored).
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertBrowser, extensionHostText, launchBrowser, makeScratchDir, removeScratch, startCodeServer, workbenchLogText } from './codeServer.mjs';

const t0 = Date.now();
const note = (s) => process.stderr.write(`[code-server-launcher +${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}\n`);

// Flags of the `code` CLI that take a value as the next argument (when not written --flag=value).
const VALUE_FLAGS = new Set([
  'extensionDevelopmentPath', 'extensionTestsPath', 'user-data-dir', 'extensions-dir', 'locale',
  'log', 'folder-uri', 'file-uri', 'profile', 'crash-reporter-directory', 'inspect-extensions',
  'inspect-brk-extensions', 'logsPath', 'sync',
]);

export function parseArgs(argv) {
  const out = { extensionDevelopmentPath: [], extensionTestsPath: undefined, userDataDir: undefined, extensionsDir: undefined, workspace: undefined, ignored: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      out.workspace ??= a;
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    let value = eq < 0 ? undefined : a.slice(eq + 1);
    if (value === undefined && VALUE_FLAGS.has(name) && i + 1 < argv.length) value = argv[++i];
    const asPath = (v) => (v.startsWith('file:') ? fileURLToPath(v) : v);
    switch (name) {
      case 'extensionDevelopmentPath': out.extensionDevelopmentPath.push(resolve(asPath(value))); break;
      case 'extensionTestsPath': out.extensionTestsPath = resolve(asPath(value)); break;
      case 'user-data-dir': out.userDataDir = resolve(value); break;
      case 'extensions-dir': out.extensionsDir = resolve(value); break;
      case 'folder-uri': out.workspace ??= asPath(value); break;
      default: out.ignored.push(a); // sandbox/gpu/update/welcome flags mean nothing here
    }
  }
  if (out.workspace) out.workspace = resolve(out.workspace);
  return out;
}

/** Test-runner exit codes as `code` would return them; 1 on any launcher failure. */
async function main() {
  // Whoever reads our output may go away first (a closed pipe): keep cleaning up regardless.
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
  const args = parseArgs(process.argv.slice(2));
  if (!args.extensionTestsPath) {
    note('no --extensionTestsPath given: nothing to run');
    return 2;
  }
  if (args.workspace && !existsSync(args.workspace)) {
    note(`workspace ${args.workspace} does not exist`);
    return 2;
  }
  const testsPath = resolveTestsEntry(args.extensionTestsPath);

  const scratch = makeScratchDir('skydeck-launcher-');
  let server;
  let browser;
  let cleaning;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await browser?.close().catch(() => {});
      await server?.stop().catch((e) => note(`stopping code-server: ${e.message}`));
      removeScratch(scratch, note);
    })());
  // Our handlers, not Playwright's (launchBrowser({handleSignals:false})): clean up, then exit.
  // `on`, not `once`: a second signal while cleaning up must not kill us half-way.
  let signalled = false;
  const onSignal = (sig, code) => () => {
    if (signalled) return;
    signalled = true;
    note(`${sig}: closing the browser and code-server`);
    void cleanup().then(() => process.exit(code));
  };
  process.on('SIGINT', onSignal('SIGINT', 130));
  process.on('SIGTERM', onSignal('SIGTERM', 143));
  process.on('SIGHUP', onSignal('SIGHUP', 129));
  // If whoever started us dies (test-electron's runner killed, CI's timeout), stop too.
  const parent = process.ppid;
  const orphanCheck = setInterval(() => {
    if (process.ppid !== parent) onSignal('parent exit', 1)();
  }, 1000);
  orphanCheck.unref();

  const timeoutMs = Number(process.env.SKYDECK_TEST_TIMEOUT_MS || 300_000);
  let timer;
  try {
    assertBrowser(); // before code-server: without a browser nothing can run the tests
    server = await startCodeServer({ scratchDir: scratch, userDataDir: args.userDataDir, extensionsDir: args.extensionsDir, log: note });
    browser = await launchBrowser({ handleSignals: false });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const verbose = process.env.SKYDECK_TEST_VERBOSE === '1';
    let reported = false; // saw the runner's "N passed, N failed" line
    page.on('console', (msg) => {
      const raw = msg.text();
      const text = extensionHostText(raw);
      if (text !== null) {
        process.stdout.write(`${text}\n`);
        if (/^\d+ passed, \d+ failed/m.test(text)) reported = true;
      }
      // The workbench's own errors (e.g. an extension failing to activate) are worth seeing;
      // its info chatter and the browser's resource errors are not, unless asked for.
      else if (verbose || /^%c\s*ERR /.test(raw)) process.stderr.write(`[workbench ${msg.type()}] ${workbenchLogText(raw)}\n`);
    });
    page.on('pageerror', (e) => note(`page error: ${e.message}`));
    let exitCode;
    const exited = new Promise((res) => (exitCode = res));
    await page.exposeFunction('codeAutomationExit', (code) => exitCode(Number(code ?? 0)));
    const timedOut = new Promise((res) => {
      timer = setTimeout(() => res('timeout'), timeoutMs);
    });

    const url = server.workbenchUrl({ folder: args.workspace, extensionDevelopmentPath: args.extensionDevelopmentPath, extensionTestsPath: testsPath });
    note(`opening the workbench${args.workspace ? ` on ${args.workspace}` : ''}`);
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    const code = await Promise.race([exited, timedOut]);
    if (code === 'timeout') {
      note(`tests did not finish within ${timeoutMs} ms (SKYDECK_TEST_TIMEOUT_MS); code-server log tail:\n${server.logTail(3000)}`);
      return 1;
    }
    // Console messages sent just before the exit call may still be on their way.
    await new Promise((r) => setTimeout(r, 300));
    note(`tests exited with code ${code}`);
    // A runner that never reported died early: code-server's log may say why.
    if (code !== 0 && !reported) note(`code-server log tail:\n${server.logTail(2000)}`);
    return code;
  } catch (e) {
    if (signalled) return 1; // the browser was closed under us on purpose
    note(`failed: ${e.stack ?? e}`);
    if (server) note(`code-server log tail:\n${server.logTail(2000)}`);
    return 1;
  } finally {
    clearTimeout(timer);
    await cleanup();
    note('browser closed, code-server stopped');
  }
}

/** A directory as extensionTestsPath means its index.js, as in desktop VS Code. */
function resolveTestsEntry(p) {
  if (existsSync(p) && statSync(p).isDirectory()) return resolve(p, 'index.js');
  return p;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      note(`crashed: ${e.stack ?? e}`);
      process.exit(1);
    },
  );
}
