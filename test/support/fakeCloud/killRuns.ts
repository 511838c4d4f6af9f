// Runs the kill -9 experiment: per run a fresh workspace and cloud file, a "work" child killed
// after its Nth cloud call (its own SIGKILL exactly at the call, or the parent's when it reads
// the child's report of that call, landing anywhere after it), then a fresh process that never
// ran the core reconciles from disk (one "serve" process per worker answers run after run: 200
// extra node starts would dominate the time). Only a SIGKILL after at least one reported cloud
// call counts as a kill; a child that finishes before its kill point is re-run (fresh) with a
// point among the calls it made. Children are one esbuild bundle (fast start).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { prng } from '../prng';
import type { ChildConfig, ReconcileReport } from './killChild';
import { REPORT_FD } from './killProtocol';

export interface KillReport {
  runs: number;
  /** Runs whose child died of SIGKILL after at least one cloud call. */
  killed: number;
  /** Child runs that finished before their kill point (each re-run fresh). */
  missed: number;
  /** Kills per step: the operation running and the last cloud call reported before death. */
  byStep: Record<string, number>;
  leaks: number;
  afterDown: number;
  unconfirmed: number;
  failures: string[];
}

/** Tries per run: a child that misses its kill point twice is re-run with a self-kill. */
const TRIES = 3;

export async function bundleChild(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-killchild-'));
  const out = path.join(dir, 'killChild.cjs');
  await build({ entryPoints: [path.join(__dirname, 'killChild.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'error' });
  fs.copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), path.join(dir, 'sql-wasm.wasm'));
  return out;
}

// Short-lived children: skip optimizing compilers (JS and WASM), a third of the CPU time.
const CHILD_FLAGS = ['--liftoff-only', '--no-opt'];

interface ChildOutcome {
  code: number | null;
  signal: string | null;
  err: string;
  /** Cloud calls the child reported (the highest call number). */
  calls: number;
  /** "operation: op at" of the last reported call. */
  step?: string;
}

function runChild(bundle: string, cfg: ChildConfig): Promise<ChildOutcome> {
  return new Promise((resolve) => {
    const stdio: ('ignore' | 'pipe')[] = ['ignore', 'ignore', 'pipe'];
    stdio[REPORT_FD] = 'pipe';
    const child = spawn(process.execPath, [...CHILD_FLAGS, bundle, JSON.stringify(cfg)], { stdio });
    let err = '';
    let buf = '';
    let phase = '?';
    let calls = 0;
    let step: string | undefined;
    child.stderr!.on('data', (d) => (err += d));
    child.stdio[REPORT_FD]!.on('data', (d) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const [word, ...rest] = buf.slice(0, i).split(' ');
        buf = buf.slice(i + 1);
        if (word === 'phase') phase = rest.join(' ');
        if (word !== 'call') continue;
        const [n, op, at] = rest;
        calls = Math.max(calls, Number(n));
        step = `${phase}: ${op} ${at}`;
        if (cfg.killAt?.by === 'parent' && Number(n) === cfg.killAt.n && at === cfg.killAt.at) child.kill('SIGKILL');
      }
    });
    child.on('close', (code, signal) => resolve({ code, signal, err, calls, step }));
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
  const report: KillReport = { runs: 0, killed: 0, missed: 0, byStep: {}, leaks: 0, afterDown: 0, unconfirmed: 0, failures: [] };
  const plans = Array.from({ length: runs }, (_, i) => ({
    i, seed: Math.floor(rnd() * 2 ** 31), by: rnd() < 0.6 ? 'self' as const : 'parent' as const, n: 1 + Math.floor(rnd() * 20),
    at: rnd() < 0.5 ? 'before' as const : 'after' as const, retry: rnd(),
  }));
  const one = async (p: (typeof plans)[number], rec: ReturnType<typeof reconciler>) => {
    let kill: NonNullable<ChildConfig['killAt']> = { n: p.n, at: p.at, by: p.by };
    let base: ChildConfig | undefined;
    let landed = false;
    for (let t = 0; t < TRIES && !landed; t++) {
      if (base) fs.rmSync(base.root, { recursive: true, force: true });
      const root = fs.mkdtempSync(path.join(fastTmp(), 'skydeck-kill-'));
      base = { mode: 'work', root, cloudFile: path.join(root, 'cloud.json'), epoch: Date.now(), scale: opts.scale ?? 3_000, seed: p.seed };
      const w = await runChild(bundle, { ...base, killAt: kill });
      landed = w.signal === 'SIGKILL' && w.calls > 0;
      if (landed) {
        report.killed++;
        report.byStep[w.step!] = (report.byStep[w.step!] ?? 0) + 1;
      } else if (w.code === 0) {
        // Finished before the kill point: again, at one of the calls it made.
        report.missed++;
        // The last try is a self-kill before a call it made: every call reports "before"
        // ("after" is skipped when the call fails first).
        const last = t + 1 === TRIES - 1;
        kill = { n: 1 + Math.floor(p.retry * w.calls), at: last ? 'before' : kill.at, by: last ? 'self' : kill.by };
      } else {
        report.failures.push(`run ${p.i}: work ${w.signal ? `died of ${w.signal}` : `exited ${w.code}`} after ${w.calls} call(s): ${w.err.slice(0, 400)}`);
        break;
      }
    }
    if (!landed) report.failures.push(`run ${p.i} (seed ${p.seed}): no kill landed in ${TRIES} tries`);
    const res = await rec.ask({ ...base!, mode: 'serve' });
    report.runs++;
    if (res.error) report.failures.push(`run ${p.i}: reconcile failed: ${res.error.slice(0, 400)}`);
    else {
      report.leaks += res.leaks.length;
      report.afterDown += res.afterDown.length;
      report.unconfirmed += res.unconfirmed;
      if (res.leaks.length || res.afterDown.length) report.failures.push(`run ${p.i} (seed ${p.seed}, ${kill.by} kill at call ${kill.n} ${kill.at}): leaks ${res.leaks}, live after down ${res.afterDown}`);
    }
    fs.rmSync(base!.root, { recursive: true, force: true });
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
