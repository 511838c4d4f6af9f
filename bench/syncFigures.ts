// The workdir-sync figures (bench/ssh.ts, and alone in bench/ssh-sync.ts): exec -d of a task
// whose workdir holds 20,000 files (500 MB), then `runs` times with one file edited.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { exec } from '../src/core/ops';
import type { TestOps } from '../test/integration/ops/helpers';
import { forgetScanMemos } from '../src/core/sync/fastScan';
import { treeCpuMs } from './treeCpu';

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
    await exec(ops, { cluster, taskFile: wdTask, detach: true });
    const full = performance.now() - t0;
    const oneChanged: number[] = [];
    // CPU of each one-changed exec: this process alone, and with every process below it (treeCpu.ts).
    const ownCpu: number[] = [];
    const allCpu: number[] = [];
    const cpuNow = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
    for (let i = 0; i < runs; i++) {
      fs.writeFileSync(path.join(wd, 'd7', `f${7 + 100 * i}.bin`), `edit ${i}\n`);
      const c0 = cpuNow();
      const tree0 = treeCpuMs();
      t0 = performance.now();
      await exec(ops, { cluster, taskFile: wdTask, detach: true });
      oneChanged.push(performance.now() - t0);
      ownCpu.push(cpuNow() - c0);
      allCpu.push(treeCpuMs() - tree0);
      if (process.env.SKYDECK_TRACE === '1') process.stderr.write('\n');
    }
    // As a new CLI process scans: knowing only the memo its last sync left beside the manifest
    // (scanMemoFile.ts), and, as before that existed, nothing (the tree walked).
    const newProcess = async (withMemo: boolean): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        fs.writeFileSync(path.join(wd, 'd9', `f${9 + 100 * i}.bin`), `edit ${withMemo} ${i}\n`);
        forgetScanMemos();
        if (!withMemo) for (const f of fs.readdirSync(syncDir)) if (f.endsWith('.scan')) fs.rmSync(path.join(syncDir, f));
        t0 = performance.now();
        await exec(ops, { cluster, taskFile: wdTask, detach: true });
        times.push(performance.now() - t0);
      }
      return times;
    };
    const syncDir = path.join(ops.workspaceRoot, '.skydeck', 'sync');
    const fresh = await newProcess(true);
    const walked = await newProcess(false);
    const loadavg = os.loadavg().map((l) => Math.round(l * 100) / 100);
    console.log(JSON.stringify({ figure: 'sync.exec_full_ms', value: Math.round(full), unit: 'ms', files: 20_000, mb: 500, synced: synced[0], loadavg }));
    console.log(JSON.stringify({ figure: 'sync.exec_one_changed_ms', value: Math.round(median(oneChanged)), unit: 'ms', runs, all: oneChanged.map(Math.round), files: 20_000, mb: 500, synced: synced.pop(), note: 'exec -d (sync + submit), connection open', loadavg,
      cpu_ms: Math.round(median(ownCpu)), cpu_all: ownCpu.map(Math.round), tree_cpu_ms: Math.round(median(allCpu)), tree_cpu_all: allCpu.map(Math.round) }));
    console.log(JSON.stringify({
      figure: 'sync.exec_one_changed_new_process_ms', value: Math.round(median(fresh)), unit: 'ms', runs, all: fresh.map(Math.round),
      without_memo_ms: Math.round(median(walked)), without_memo_all: walked.map(Math.round),
      note: 'the scan as a new CLI process does it: from the memo its last sync left (without: the tree walked); connection open', loadavg,
    }));
  } finally {
    ops.log = log;
    fs.rmSync(wd, { recursive: true, force: true });
  }
}
