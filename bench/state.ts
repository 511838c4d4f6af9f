// Benchmark: saving the workspace state holding 10,000 cached jobs (one JSON line per figure).
//   npm run bench:state
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { putJobs, StateStore } from '../src/core/state';
import type { JobRecord } from '../src/core/state';
import { runBench } from './runBench';

function emit(figure: string, value: number, unit: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ figure, value: Number(value.toFixed(3)), unit, ...extra }));
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-state-'));
  const store = await StateStore.open(path.join(dir, 'state.db'));
  const jobs: JobRecord[] = Array.from({ length: 10_000 }, (_, i) => ({
    cluster_uid: 'bench-uid', cluster: 'bench', job_id: i + 1, name: `train-${i}`, user_name: 'me', status: 'SUCCEEDED',
    submitted_at: 1_700_000_000 + i, started_at: 1_700_000_001 + i, ended_at: 1_700_000_100 + i,
    exit_code: 0, reason: null, resources: '{"cpus":1}',
  }));
  await store.write((db) => putJobs(db, jobs));
  const size = fs.statSync(store.file).size;
  // A one-row transaction still rewrites the whole image: that is the save cost that matters.
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = process.hrtime.bigint();
    await store.write((db) => db.run("UPDATE jobs SET status='FAILED' WHERE job_id = ?", [i + 1]));
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  emit('state.save_10k_jobs_ms', times[Math.floor(times.length / 2)], 'ms', { p90: times[17], file_mb: size / 1e6 });
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

runBench(main);
