// When the shared Kubernetes kit (test/k8s/kit) starts and stops. Files join it with
// useKit/releaseKit; under mocha it stays up from the first file that needs it to the end of
// the run (a warm start is ~25-60 s and down.sh is slow too, so once per file added minutes),
// taken down by a root "after all" hook, which mocha runs also when tests failed. A benchmark
// (no mocha) takes it down at its last release. SKYDECK_K8S_KEEP=1 (not under CI) keeps it.
import { spawn } from 'node:child_process';
import * as path from 'node:path';

// Another scripts dir only for the lifecycle's own test (fake up.sh/down.sh that log their calls).
const KIT = process.env.SKYDECK_K8S_KIT_SCRIPTS || path.resolve(__dirname, '../k8s/kit');
export const KIT_RUN_DIR = process.env.SKYDECK_K8S_RUN_DIR || '/tmp/skydeck-k8s-kit';

let users = 0;
let starting: Promise<unknown> | undefined;
let heldForRun = false;

export function runKitScript(script: string, args: string[], timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Its own session: a SIGTERM to the test run's process group does not cut a down.sh short.
    const c = spawn('bash', [path.join(KIT, script), ...args], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d: Buffer) => (stdout += d));
    c.stderr.on('data', (d: Buffer) => (stderr = (stderr + d).slice(-1 << 20)));
    const timer = setTimeout(() => c.kill('SIGTERM'), timeoutMs);
    c.on('error', (e) => (stderr += String(e)));
    c.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** One start per process, shared by every user; `start` runs only if none is under way. */
export function joinKit<T>(start: () => Promise<T>): Promise<T> {
  users++;
  if (!starting) {
    starting = start();
    if (heldForRun && !keep()) onSignals(true);
  }
  return starting as Promise<T>;
}

/**
 * Under mocha, starts the kit before the first kit test, so up.sh (a warm start is ~25-60 s, a
 * cold one minutes) runs while the files before it do, not in that file's "before all" hook.
 * Without `lead`: at once (mocha loads every file before it runs any). With it: at the first
 * test of a file whose path it matches, so an idle kit (~9% of a core) does not run through the
 * whole of a long run before its files. The first useKit then joins this start; a start that
 * failed fails it there, as before. Only as root (the kit needs it; useKit skips or fails
 * otherwise) and not with SKYDECK_K8S_EARLY=0.
 */
export function startKitEarly<T>(start: () => Promise<T>, lead?: RegExp): void {
  // (mocha --dry-run runs no hook: nothing would take the kit down again.)
  if (!heldForRun || starting || process.getuid?.() !== 0 || process.env.SKYDECK_K8S_EARLY === '0' || process.argv.includes('--dry-run')) return;
  const begin = () => {
    if (starting) return;
    starting = start();
    // Nobody awaits it until a kit file's hook does: its failure is reported there, not here.
    starting.catch(() => undefined);
    if (!keep()) onSignals(true);
  };
  const g = globalThis as { beforeEach?: (fn: (this: Mocha.Context) => void) => void };
  if (!lead || typeof g.beforeEach !== 'function') return begin();
  // Registered at the root (k8sKit.ts is imported at a file's top level): runs before every test.
  g.beforeEach(function () {
    if (!starting && lead.test(this.currentTest?.file ?? '')) begin();
  });
}

const keep = () => process.env.SKYDECK_K8S_KEEP === '1' && !process.env.CI;

/** The last user takes the kit down, unless the mocha run holds it (then the run's end does). */
export async function releaseKit(): Promise<void> {
  if (--users > 0 || !starting || heldForRun) return;
  await stopKit();
}

async function stopKit(): Promise<void> {
  // A developer iterating keeps the kit between runs (warm starts are still ~25 s).
  if (!starting || keep()) return;
  // A start still under way (its test's hook timed out) is waited for: down.sh then finds all it made.
  await starting.catch(() => undefined);
  starting = undefined;
  onSignals(false);
  const r = await runKitScript('down.sh', [KIT_RUN_DIR], 5 * 60_000);
  if (r.code !== 0) throw new Error(`the Kubernetes kit did not go down cleanly: ${r.stderr.slice(-2000)}`);
}

// A run ended by a signal (the suite runner's time limit, ^C) never reaches the root hook:
// down.sh then runs in its own session, so it finishes after this process is gone.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
function downAndExit(sig: NodeJS.Signals): void {
  if (starting && !keep()) spawn('bash', [path.join(KIT, 'down.sh'), KIT_RUN_DIR], { detached: true, stdio: 'ignore' }).unref();
  process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1));
}
function onSignals(on: boolean): void {
  for (const s of SIGNALS) {
    process.removeListener(s, downAndExit);
    if (on) process.once(s, downAndExit);
  }
}

/**
 * Called when k8sKit.ts is first imported. A test file imports it at its top level, where
 * mocha's current suite is the root one: the hook registered here runs once, after every file.
 */
export function holdKitForMochaRun(): void {
  const g = globalThis as { after?: (title: string, fn: (this: Mocha.Context) => Promise<void>) => void; describe?: unknown };
  if (heldForRun || typeof g.after !== 'function' || typeof g.describe !== 'function') return;
  heldForRun = true;
  g.after('the Kubernetes kit goes down at the end of the run', async function () {
    this.timeout(21 * 60_000); // up.sh's 15 min, then down.sh's 5
    await stopKit();
  });
}
