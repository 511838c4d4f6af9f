// The workdir-sync figures (bench/ssh.ts, and alone in bench/ssh-sync.ts): exec -d of a task
// whose workdir holds 20,000 files (500 MB), then `runs` times with one file edited.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { exec, queue } from '../src/core/ops';
import { TERMINAL_STATUSES } from '../src/core/jobs/protocol';
import type { TestOps } from '../test/integration/ops/helpers';
import { forgetScanMemos } from '../src/core/sync/fastScan';
import { treeCpuMs } from './treeCpu';

const SETTLE_MS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Prints sync.exec_full_ms and sync.exec_one_changed_ms as JSON lines; removes the workdir after. */
export async function syncFigures(ops: TestOps, ws: string, cluster: string, task: (name: string, body: object) => string, runs: number): Promise<void> {
  const wd = path.join(ws, 'bigwd');
  for (let i = 0; i < 20_000; i++) {
    const f = path.join(wd, `d${i % 100}`, `f${i}.bin`);
    if (i < 100) fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, Buffer.alloc(25_000, i % 251));
  }
  const wdTask = task('wd', { workdir: wd, resources: { cpus: 0.01 }, run: 'true' });
  const synced: string[] = [];
  const log = ops.log;
  ops.log = (m) => { if (m.startsWith('workdir synced')) synced.push(m); };
  try {
    let t0 = performance.now();
    let last = await exec(ops, { cluster, taskFile: wdTask, detach: true });
    const full = performance.now() - t0;
    // What a user does: edit, then exec once the last run has ended (its driver's end report, a
    // Python start on the node, then costs nothing). Back to back, that report competes with the
    // next sync for the two cores: shown apart, so neither hides the other.
    const ended = async (jobId: number): Promise<void> => {
      for (;;) {
        const row = (await queue(ops, cluster)).find((r) => r.job_id === jobId);
        if (!row || TERMINAL_STATUSES.has(row.status)) break;
        await sleep(50);
      }
      await sleep(SETTLE_MS);
    };
    const oneChangedRuns = async (dir: string, waitEnd: boolean) => {
      const times: number[] = [];
      // CPU of each exec: this process alone, and with every process below it (treeCpu.ts).
      const ownCpu: number[] = [];
      const allCpu: number[] = [];
      const cpuNow = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
      for (let i = 0; i < runs; i++) {
        if (waitEnd) await ended(last.jobId);
        fs.writeFileSync(path.join(wd, dir, `f${Number(dir.slice(1)) + 100 * i}.bin`), `edit ${waitEnd} ${i}\n`);
        const c0 = cpuNow();
        const tree0 = treeCpuMs();
        t0 = performance.now();
        last = await exec(ops, { cluster, taskFile: wdTask, detach: true });
        times.push(performance.now() - t0);
        ownCpu.push(cpuNow() - c0);
        allCpu.push(treeCpuMs() - tree0);
        if (process.env.SKYDECK_TRACE === '1') process.stderr.write('\n');
      }
      return { times, ownCpu, allCpu, synced: synced[synced.length - 1] };
    };
    const oneChanged = await oneChangedRuns('d7', true);
    const backToBack = await oneChangedRuns('d8', false);
    // As a new CLI process scans: knowing only the memo its last sync left beside the manifest
    // (scanMemoFile.ts), and, as before that existed, nothing (the tree walked).
    const newProcess = async (withMemo: boolean): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        await ended(last.jobId);
        fs.writeFileSync(path.join(wd, 'd9', `f${9 + 100 * i}.bin`), `edit ${withMemo} ${i}\n`);
        forgetScanMemos();
        if (!withMemo) for (const f of fs.readdirSync(syncDir)) if (f.endsWith('.scan')) fs.rmSync(path.join(syncDir, f));
        t0 = performance.now();
        last = await exec(ops, { cluster, taskFile: wdTask, detach: true });
        times.push(performance.now() - t0);
      }
      return times;
    };
    const syncDir = path.join(ops.workspaceRoot, '.skydeck', 'sync');
    const fresh = await newProcess(true);
    const walked = await newProcess(false);
    const loadavg = os.loadavg().map((l) => Math.round(l * 100) / 100);
    console.log(JSON.stringify({ figure: 'sync.exec_full_ms', value: Math.round(full), unit: 'ms', files: 20_000, mb: 500, synced: synced[0], loadavg }));
    const figure = (name: string, r: Awaited<ReturnType<typeof oneChangedRuns>>, note: string) => console.log(JSON.stringify({
      figure: name, value: Math.round(median(r.times)), unit: 'ms', runs, all: r.times.map(Math.round), files: 20_000, mb: 500, synced: r.synced, note, loadavg,
      cpu_ms: Math.round(median(r.ownCpu)), cpu_all: r.ownCpu.map(Math.round), tree_cpu_ms: Math.round(median(r.allCpu)), tree_cpu_all: r.allCpu.map(Math.round),
    }));
    figure('sync.exec_one_changed_ms', oneChanged, `exec -d (sync + submit) once the last run ended (+${SETTLE_MS} ms), connection open`);
    figure('sync.exec_one_changed_back_to_back_ms', backToBack, 'the same, started as soon as the last exec returned: its job starts and ends meanwhile');
    console.log(JSON.stringify({
      figure: 'sync.exec_one_changed_new_process_ms', value: Math.round(median(fresh)), unit: 'ms', runs, all: fresh.map(Math.round),
      without_memo_ms: Math.round(median(walked)), without_memo_all: walked.map(Math.round),
      note: 'the scan as a new CLI process does it: from the memo its last sync left (without: the tree walked); last run ended; connection open', loadavg,
    }));
  } finally {
    ops.log = log;
    fs.rmSync(wd, { recursive: true, force: true });
  }
}
