// Entry for the in-extension-host suites (test/vscode/suite/): builds them, makes a scratch
// workspace holding examples/hello.sky.yaml, and hands over to @vscode/test-electron's runTests.
//
//   npx tsx test/vscode/runTests.ts
//
// Which VS Code runs the tests (SKYDECK_TEST_VSCODE):
//   code-server (default on Debian/Ubuntu: these machines, CI; installed on first use) — the launcher
//       scripts/vscode-test/code-server-launcher.mjs plays the VS Code executable: code-server
//       plus headless Chromium, all on 127.0.0.1.
//   desktop (default elsewhere) — test-electron downloads and starts desktop VS Code, as usual.
//   <path> — that VS Code executable.
// SKYDECK_TEST_EXTENSION: load Skydeck from that directory instead of this repo (run-all.mjs
// sets it to the copy installed from the .vsix).
// The last line is "N passed, N failed", printed by the runner inside the extension host.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const LAUNCHER = join(ROOT, 'scripts/vscode-test/code-server-launcher.mjs');
// The extension under test: the repo, or (run-all.mjs --packaged) the copy installed from the .vsix.
const EXTENSION = process.env.SKYDECK_TEST_EXTENSION ? resolve(process.env.SKYDECK_TEST_EXTENSION) : ROOT;

/**
 * code-server where it can be installed (Debian/Ubuntu: these machines, CI), installed now if it
 * is not yet (the same installer as run-all.mjs); desktop VS Code elsewhere.
 */
async function pickExecutable(): Promise<string | undefined> {
  const { canInstallCodeServer, ensureCodeServer } = (await import(join(ROOT, 'scripts/vscode-test/install.mjs'))) as typeof import('../../scripts/vscode-test/install.mjs');
  const choice = process.env.SKYDECK_TEST_VSCODE || (process.env.SKYDECK_CODE_SERVER || canInstallCodeServer() ? 'code-server' : 'desktop');
  if (choice === 'desktop') return undefined; // test-electron downloads VS Code
  if (choice === 'code-server') {
    if (!process.env.SKYDECK_CODE_SERVER) await ensureCodeServer();
    return LAUNCHER;
  }
  return resolve(choice);
}

// test-electron prints "Exit code: N" after the run; keep the runner's total as the last line.
const COUNT = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/gm;
let tail = '';
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  tail = (tail + chunk.toString()).slice(-8192);
  return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
}) as typeof process.stdout.write;

function finalLine(code: number): string {
  const m = [...tail.matchAll(COUNT)].pop();
  if (!m) return `0 passed, 1 failed`; // VS Code or the runner died before reporting
  const failed = Number(m[2]) + (code !== 0 && Number(m[2]) === 0 ? 1 : 0);
  return `${m[1]} passed, ${failed} failed${m[3] ? `, ${m[3]} skipped` : ''}`;
}

async function main(): Promise<number> {
  if (EXTENSION === ROOT && !existsSync(join(ROOT, 'dist/extension.js'))) {
    console.log('dist/extension.js is missing: npm run build');
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  }
  // Compiled by the same script the runner entry uses (plain ESM, so load it with import()).
  const { buildTests } = (await import(join(ROOT, 'scripts/vscode-test/build-tests.mjs'))) as { buildTests(): Promise<string> };
  const extensionTestsPath = await buildTests();

  const scratch = mkdtempSync(join(tmpdir(), 'skydeck-vscode-tests-'));
  const workspace = join(scratch, 'workspace');
  mkdirSync(join(workspace, 'examples'), { recursive: true });
  copyFileSync(join(ROOT, 'examples/hello.sky.yaml'), join(workspace, 'examples/hello.sky.yaml'));

  const vscodeExecutablePath = await pickExecutable();
  console.log(`VS Code: ${vscodeExecutablePath ?? 'desktop (downloaded by @vscode/test-electron)'}; extension: ${EXTENSION}`);
  const launchArgs = [
    workspace,
    `--user-data-dir=${join(scratch, 'user-data')}`,
    `--extensions-dir=${join(scratch, 'extensions')}`,
    '--disable-extensions', // other installed extensions stay out (desktop)
  ];
  // The extension host's own home: ~/.skydeck (known_hosts, machine id, the ssh config files
  // Connect with Remote-SSH writes) and ~/.ssh are scratch, never the developer's.
  const home = join(scratch, 'home');
  mkdirSync(home, { mode: 0o700 });
  const extensionTestsEnv = { SKYDECK_TEST: '1', HOME: home };
  try {
    const testElectron = await loadTestElectron();
    if (!testElectron) {
      if (!vscodeExecutablePath) throw new Error('@vscode/test-electron is not installed (npm install): it is needed to run desktop VS Code');
      // Same flags test-electron would pass (its runTest.ts); only the launcher runs this way.
      console.log('@vscode/test-electron is not installed: starting the launcher directly');
      return await spawnExecutable(vscodeExecutablePath, [
        ...launchArgs,
        `--extensionTestsPath=${extensionTestsPath}`,
        `--extensionDevelopmentPath=${EXTENSION}`,
      ], extensionTestsEnv);
    }
    return await testElectron.runTests({
      vscodeExecutablePath,
      version: vscodeExecutablePath ? undefined : '1.100.3', // engines.vscode ^1.100.0
      extensionDevelopmentPath: EXTENSION,
      extensionTestsPath,
      launchArgs,
      extensionTestsEnv,
    });
  } catch (e) {
    // TestRunFailedError: the tests ran and failed (their output says which); anything else is
    // a failure to start VS Code at all.
    const code = (e as { code?: number }).code;
    if (typeof code !== 'number') console.error(e);
    return typeof code === 'number' && code !== 0 ? code : 1;
  } finally {
    if (process.env.SKYDECK_TEST_KEEP !== '1') rmSync(scratch, { recursive: true, force: true });
  }
}

/** The part of @vscode/test-electron used here (typed locally so a missing package is no type error). */
interface TestElectron {
  runTests(o: {
    vscodeExecutablePath?: string;
    version?: string;
    extensionDevelopmentPath: string;
    extensionTestsPath: string;
    launchArgs?: string[];
    extensionTestsEnv?: Record<string, string>;
  }): Promise<number>;
}

async function loadTestElectron(): Promise<TestElectron | undefined> {
  try {
    return require('@vscode/test-electron') as TestElectron;
  } catch (e) {
    if ((e as { code?: string }).code === 'MODULE_NOT_FOUND' || (e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw e;
  }
}

function spawnExecutable(exe: string, args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((res) => {
    const child = spawn(exe, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    child.stdout.on('data', (d: Buffer) => process.stdout.write(d));
    const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
    process.once('SIGINT', forward('SIGINT'));
    process.once('SIGTERM', forward('SIGTERM'));
    child.on('close', (code, signal) => res(code ?? (signal ? 1 : 0)));
  });
}

main().then(
  (code) => {
    console.log(finalLine(code));
    process.exit(code);
  },
  (e) => {
    console.error(e);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
