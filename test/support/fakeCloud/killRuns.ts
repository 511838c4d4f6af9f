// Runs the kill -9 experiment: per run a fresh workspace and cloud file, a "work" child killed
// at a random point (its own SIGKILL at a chosen cloud call, or the parent's after a random
// delay), then a fresh process that never ran the core reconciles from disk (one "serve"
// process per worker answers run after run: 200 extra node starts would dominate the time).
// Children are one esbuild bundle (fast start).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { prng } from '../prng';
import type { ChildConfig, ReconcileReport } from './killChild';

export interface KillReport {
  runs: number;
  killed: number;
  leaks: number;
  afterDown: number;
  unconfirmed: number;
  failures: string[];
}

export async function bundleChild(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-killchild-'));
  const out = path.join(dir, 'killChild.cjs');
  await build({ entryPoints: [path.join(__dirname, 'killChild.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'error' });
  fs.copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), path.join(dir, 'sql-wasm.wasm'));
  return out;
}

// Short-lived children: skip optimizing compilers (JS and WASM), a third of the CPU time.
const CHILD_FLAGS = ['--liftoff-only', '--no-opt'];

function runChild(bundle: string, cfg: ChildConfig, killAfterMs?: number): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CHILD_FLAGS, bundle, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const t = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('close', (code, signal) => {
      if (t) clearTimeout(t);
      resolve({ code, signal, out, err });
    });
  });
}

/** A long-lived reconciler process: one request at a time, answered in order. */
function reconciler(bundle: string): { ask(cfg: ChildConfig): Promise<ReconcileReport & { error?: string }>; close(): void } {
  const child = spawn(process.execPath, [bundle, 'serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting: ((r: ReconcileReport & { error?: string }) => void)[] = [];
  let buf = '';
  child.stdout.on('data', (d) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      waiting.shift()?.(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
  });
  return {
    ask: (cfg) => new Promise((resolve) => {
      waiting.push(resolve);
      child.stdin.write(JSON.stringify(cfg) + '\n');
    }),
    close: () => child.stdin.end(),
  };
}

export async function killRuns(runs: number, opts: { seed?: number; parallel?: number; scale?: number } = {}): Promise<KillReport> {
  const bundle = await bundleChild();
  const rnd = prng(opts.seed ?? 42);
  const report: KillReport = { runs: 0, killed: 0, leaks: 0, afterDown: 0, unconfirmed: 0, failures: [] };
  const plans = Array.from({ length: runs }, (_, i) => ({
    i, seed: Math.floor(rnd() * 2 ** 31), byCall: rnd() < 0.6, n: 1 + Math.floor(rnd() * 20), at: rnd() < 0.5 ? 'before' as const : 'after' as const,
    ms: 20 + Math.floor(rnd() * 230),
  }));
  const one = async (p: (typeof plans)[number], rec: ReturnType<typeof reconciler>) => {
    const root = fs.mkdtempSync(path.join(fastTmp(), 'skydeck-kill-'));
    const base: ChildConfig = { mode: 'work', root, cloudFile: path.join(root, 'cloud.json'), epoch: Date.now(), scale: opts.scale ?? 3_000, seed: p.seed };
    const w = await runChild(bundle, { ...base, ...(p.byCall ? { killAt: { n: p.n, at: p.at } } : {}) }, p.byCall ? undefined : p.ms);
    if (w.signal === 'SIGKILL') report.killed++;
    else if (w.code !== 0) report.failures.push(`run ${p.i}: work exited ${w.code}: ${w.err.slice(0, 400)}`);
    const res = await rec.ask({ ...base, mode: 'serve' });
    report.runs++;
    if (res.error) report.failures.push(`run ${p.i}: reconcile failed: ${res.error.slice(0, 400)}`);
    else {
      report.leaks += res.leaks.length;
      report.afterDown += res.afterDown.length;
      report.unconfirmed += res.unconfirmed;
      if (res.leaks.length || res.afterDown.length) report.failures.push(`run ${p.i} (seed ${p.seed}, ${p.byCall ? `call ${p.n} ${p.at}` : `${p.ms} ms`}): leaks ${res.leaks}, live after down ${res.afterDown}`);
    }
    fs.rmSync(root, { recursive: true, force: true });
  };
  const queue = [...plans];
  const workers = Array.from({ length: opts.parallel ?? 3 }, async () => {
    const rec = reconciler(bundle);
    for (let p = queue.shift(); p; p = queue.shift()) await one(p, rec);
    rec.close();
  });
  await Promise.all(workers);
  fs.rmSync(path.dirname(bundle), { recursive: true, force: true });
  return report;
}

/** tmpfs when there is one: these runs test kill points, not disk flushes (fsync dominates). */
export function fastTmp(): string {
  return fs.existsSync('/dev/shm') && fs.statSync('/dev/shm').isDirectory() ? '/dev/shm' : os.tmpdir();
}
