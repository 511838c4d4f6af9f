// A real VS Code workbench on this machine: code-server (VS Code 1.100.3 server) on loopback,
// driven by Debian's Chromium through playwright-core. Shared by the runTests() launcher
// (code-server-launcher.mjs) and the Playwright UI suites (test/vscode/ui/).
// code-server 4.100.3 is the newest that runs on Node 20; it is installed from the npm registry
// by install-code-server.sh (nothing is downloaded from elsewhere).
//
// Cleanup rule: code-server runs in its own process group; stop() signals that group AND every
// process that descends from code-server (terminals are setsid'd out of the group), then the
// browser is closed by its owner. Extension hosts otherwise linger for hours.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { processesOf, stopTree } from '../procTree.mjs';

export const CODE_SERVER_VERSION = '4.100.3';
export const CACHE_DIR = process.env.SKYDECK_TEST_CACHE || '/var/cache/skydeck-test';
export const CHROMIUM_PATH = process.env.SKYDECK_CHROMIUM || '/usr/bin/chromium';

/** Chromium flags that work on these machines (no sandbox as root, no outbound connections). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Settings that keep the workbench quiet and deterministic (no tours, no network look-ups). */
export const DEFAULT_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
  'npm.autoDetect': 'off',
  'typescript.disableAutomaticTypeAcquisition': true,
  'chat.disableAIFeatures': true,
  'chat.commandCenter.enabled': false,
  'window.commandCenter': false,
};

/** Path of the installed code-server binary, or throws with the command that installs it. */
export function findCodeServer() {
  const fromEnv = process.env.SKYDECK_CODE_SERVER;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`SKYDECK_CODE_SERVER=${fromEnv} does not exist`);
    return fromEnv;
  }
  const bin = join(CACHE_DIR, 'code-server', 'node_modules', '.bin', 'code-server');
  if (!existsSync(join(CACHE_DIR, 'code-server', `.installed-${CODE_SERVER_VERSION}`)) || !existsSync(bin)) {
    throw new Error(`code-server ${CODE_SERVER_VERSION} is not installed in ${CACHE_DIR}: run scripts/vscode-test/install-code-server.sh`);
  }
  return bin;
}

/** A fresh scratch directory under the system temp dir. */
export function makeScratchDir(prefix = 'skydeck-vscode-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A port that was free a moment ago on 127.0.0.1 (code-server's liveness is checked after). */
export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Servers not yet stopped. If this process exits without stopping one (an uncaught exception,
// process.exit() from a signal handler, a closed stdout), the 'exit' hook SIGKILLs its tree:
// a leftover code-server keeps extension hosts alive for hours. A fatal signal that nobody in
// this process handles would skip 'exit' hooks, so such signals get a handler that does the same
// and exits as the signal would have (a caller with its own handlers keeps them).
const live = new Set();
let hooksInstalled = false;
function track(handle) {
  live.add(handle);
  if (hooksInstalled) return;
  hooksInstalled = true;
  const killAll = () => {
    for (const h of live) h.killNow();
  };
  process.on('exit', killAll);
  for (const [sig, n] of [['SIGINT', 2], ['SIGTERM', 15], ['SIGHUP', 1]]) {
    if (process.listenerCount(sig) > 0) continue;
    process.on(sig, () => {
      killAll(); // (Playwright's own 'exit' hook then kills its browsers)
      process.exit(128 + n);
    });
  }
}

/**
 * Starts code-server on a free loopback port with scratch state and waits for /healthz.
 * Options: userDataDir, extensionsDir, scratchDir (all created if missing), env (extra
 * environment for code-server and so for its extension hosts), settings (merged over
 * DEFAULT_SETTINGS), log (function for progress lines), startTimeoutMs.
 */
export async function startCodeServer(opts = {}) {
  const log = opts.log ?? (() => {});
  const bin = opts.bin ?? findCodeServer();
  const scratch = opts.scratchDir ?? makeScratchDir();
  const userDataDir = resolve(opts.userDataDir ?? join(scratch, 'user-data'));
  const extensionsDir = resolve(opts.extensionsDir ?? join(scratch, 'extensions'));
  const xdg = join(scratch, 'xdg');
  for (const d of [scratch, userDataDir, extensionsDir, join(xdg, 'config'), join(xdg, 'data'), join(xdg, 'cache'), join(userDataDir, 'User')]) {
    mkdirSync(d, { recursive: true });
  }
  const settingsFile = join(userDataDir, 'User', 'settings.json');
  if (!existsSync(settingsFile)) {
    writeFileSync(settingsFile, JSON.stringify({ ...DEFAULT_SETTINGS, ...(opts.settings ?? {}) }, null, 2));
  }
  const logFile = join(scratch, 'code-server.log');
  const started = Date.now();

  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const cfg = join(scratch, 'config.yaml');
    writeFileSync(cfg, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
    const fd = openSync(logFile, 'a');
    const child = spawn(
      bin,
      [
        '--config', cfg,
        '--bind-addr', `127.0.0.1:${port}`,
        '--auth', 'none',
        '--user-data-dir', userDataDir,
        '--extensions-dir', extensionsDir,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        '--ignore-last-opened',
      ],
      {
        detached: true, // own process group: stop() signals all of it
        stdio: ['ignore', fd, fd],
        env: {
          ...inheritedEnv(),
          ...(opts.env ?? {}),
          EXTENSIONS_GALLERY: '{}', // no marketplace look-ups
          SKYDECK_TEST_CONSOLE_MARK: CONSOLE_MARK, // see extensionHostText()
          // This server's own per-user Skydeck files: other tests' clusters and managed jobs
          // would otherwise show in its tree (the index of other folders, the controller's jobs).
          SKYDECK_HOME: join(scratch, 'skydeck-home'),
          SKYDECK_CONTROLLER_HOME: join(scratch, 'skydeck-controller'),
          XDG_CONFIG_HOME: join(xdg, 'config'),
          XDG_DATA_HOME: join(xdg, 'data'),
          XDG_CACHE_HOME: join(xdg, 'cache'),
        },
      },
    );
    closeSync(fd);
    let exited = null;
    child.once('exit', (code, signal) => (exited = { code, signal }));
    const server = makeHandle({ child, port, scratch, userDataDir, extensionsDir, logFile, log });
    track(server);

    const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
    let healthy = false;
    // A port taken in between makes code-server exit while another server may answer
    // /healthz: it only counts once our process has logged that it listens on that port.
    const listening = `HTTP server listening on http://127.0.0.1:${port}/`;
    while (!exited && Date.now() < deadline) {
      healthy = readTail(logFile, 1 << 16).includes(listening) && (await healthz(port));
      if (healthy && !exited) break;
      await sleep(100);
    }
    if (healthy && !exited) {
      log(`code-server ${CODE_SERVER_VERSION} up on 127.0.0.1:${port} in ${Date.now() - started} ms (pid ${child.pid}, log ${logFile})`);
      return server;
    }
    await server.stop();
    const tail = readTail(logFile);
    if (exited && attempt < 3 && /EADDRINUSE/.test(tail)) {
      log(`port ${port} was taken; retrying`);
      continue;
    }
    throw new Error(`code-server did not come up (${exited ? `exited ${exited.code ?? exited.signal}` : 'timeout'}); log tail:\n${tail}`);
  }
}

/**
 * This process's environment without what a surrounding VS Code puts there: started from a
 * VS Code terminal, VSCODE_IPC_HOOK_CLI would make code-server talk to that instance instead.
 */
function inheritedEnv() {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') delete env[k];
  }
  return env;
}

function healthz(port) {
  return fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) })
    .then((r) => r.ok)
    .catch(() => false);
}

function readTail(file, bytes = 4000) {
  try {
    const s = readFileSync(file, 'utf8');
    return s.slice(-bytes);
  } catch {
    return '';
  }
}

function makeHandle({ child, port, scratch, userDataDir, extensionsDir, logFile, log }) {
  const origin = `http://127.0.0.1:${port}`;
  let stopping;
  return {
    port,
    origin,
    pid: child.pid,
    scratch,
    userDataDir,
    extensionsDir,
    logFile,
    /** vscode-remote URI of an absolute path on this machine, as the workbench wants it. */
    remoteUri(p) {
      return `vscode-remote://127.0.0.1:${port}${encodePath(resolve(p))}`;
    },
    /**
     * Workbench URL opening `folder` (or a .code-workspace file) with extensions loaded from
     * source (extensionDevelopmentPath) and, optionally, a test runner (extensionTestsPath).
     */
    workbenchUrl({ folder, extensionDevelopmentPath = [], extensionTestsPath } = {}) {
      const payload = [];
      for (const p of [].concat(extensionDevelopmentPath)) payload.push(['extensionDevelopmentPath', this.remoteUri(p)]);
      if (extensionTestsPath) payload.push(['extensionTestsPath', this.remoteUri(extensionTestsPath)]);
      const q = new URLSearchParams();
      if (folder) q.set(folder.endsWith('.code-workspace') ? 'workspace' : 'folder', resolve(folder));
      else q.set('ew', 'true'); // empty window
      if (payload.length) q.set('payload', JSON.stringify(payload));
      return `${origin}/?${q}`;
    },
    /** SIGTERM to the group and every descendant, SIGKILL what is left after `graceMs`. */
    stop(graceMs = 3000) {
      stopping ??= stopTree(child.pid, graceMs, (n, pids) => log(`code-server: ${n} process(es) ignored SIGTERM for ${graceMs} ms; SIGKILL (${pids.join(' ')})`)).finally(() => live.delete(this));
      return stopping;
    },
    /** Synchronous last resort (process 'exit' hook): SIGKILL the group and every descendant. */
    killNow() {
      if (!child.pid) return;
      for (const pid of processesOf(child.pid, child.pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* group empty */
      }
    },
    /** Last part of code-server's own log (its extension hosts' stderr lands there too). */
    logTail(bytes) {
      return readTail(logFile, bytes);
    },
  };
}

function encodePath(p) {
  return p.split(sep).map(encodeURIComponent).join('/');
}

/** Throws when there is no Chromium to drive: callers check first, before starting code-server. */
export function assertBrowser() {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: run scripts/vscode-test/install-code-server.sh (apt package chromium)${process.env.SKYDECK_CHROMIUM ? ' or fix SKYDECK_CHROMIUM' : ''}`);
  }
}

/**
 * Launches Debian's Chromium, headless, with the flags that work here. `handleSignals: false`
 * stops Playwright from installing its own SIGINT/SIGTERM/SIGHUP handlers (its SIGINT handler
 * calls process.exit(130) when it is the last listener, cutting a caller's cleanup short); the
 * caller must then close the browser on those signals itself.
 */
export async function launchBrowser(opts = {}) {
  assertBrowser();
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: opts.headless ?? process.env.SKYDECK_TEST_HEADED !== '1',
    args: CHROMIUM_ARGS,
    timeout: 30_000,
    ...(opts.handleSignals === false ? { handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false } : {}),
  });
}

/**
 * Marker the in-host test runner (test/vscode/suite/index.ts) puts in front of every console
 * line when SKYDECK_TEST_CONSOLE_MARK is set in its environment. Needed because, when tests run
 * from a CLI, the workbench sends the extension host's console to its own log service: those
 * lines reach the page as "%c INFO color: #33f <text>", indistinguishable from the workbench's
 * own log lines, and with printf-style arguments left unformatted.
 */
export const CONSOLE_MARK = '[[skydeck-test]]';

/**
 * The extension host's output in a page console message, or null for other messages. Handles
 * the marked lines above and, for a normal (non-test) window, the "%c[Extension Host] %c…"
 * lines the workbench writes for an extension development host.
 */
export function extensionHostText(text) {
  const i = text.indexOf(CONSOLE_MARK);
  if (i >= 0) return text.slice(i + CONSOLE_MARK.length);
  const m = /^%c\[Extension Host\] %c/.exec(text);
  if (!m) return null;
  // Playwright appends the CSS arguments of the two %c after the text: drop them.
  return text.slice(m[0].length).replace(/ color: [^ ]+(?: font-weight: [^ ]+)? ?(?:color: ?[^ ]*)?$/, '').replace(/ +$/, '');
}

/** A workbench log-service line without its CSS: "%c  ERR color: #f33 text" -> "ERR text". */
export function workbenchLogText(text) {
  return text.replace(/^%c\s*(\w+) color: #?\w+ /, '$1 ');
}

/** Removes a scratch directory unless SKYDECK_TEST_KEEP=1 (then says where it is). */
export function removeScratch(dir, log = () => {}) {
  if (!dir) return;
  if (process.env.SKYDECK_TEST_KEEP === '1') {
    log(`kept ${dir} (SKYDECK_TEST_KEEP=1)`);
    return;
  }
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
