// Benchmark of the head-node agent against a local agent in serve mode, each figure in its own
// temp base dir. Prints one JSON line per figure: {"figure", "value", "unit", ...extra}.
// Run: npx tsx bench/agent.ts
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  AgentFixture,
  isAlive,
  markedProcs,
  markerPrefix,
  python,
  ServeClient,
  sleep,
  waitUntil,
  Json,
} from '../test/unit/agent/helpers';
import { runBench } from './runBench';

const env = { ...process.env, SKYDECK_TICK_INTERVAL: '2', SKYDECK_DAEMON_IDLE_EXIT: '5' };

function emit(figure: string, value: number, unit: string, extra: Json = {}): void {
  process.stdout.write(JSON.stringify({ figure, value: Number(value.toFixed(4)), unit, ...extra }) + '\n');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const now = () => Number(process.hrtime.bigint()) / 1e6; // ms

async function withAgent<T>(fn: (c: ServeClient, fx: AgentFixture) => Promise<T>): Promise<T> {
  const fx = new AgentFixture();
  fx.setup();
  const c = fx.serve(env);
  try {
    await c.hello;
    return await fn(c, fx);
  } finally {
    await fx.cleanup();
  }
}

/** Pids of `sleep` processes carrying the marker of one of these jobs. */
function sleepsOf(base: string, ids: Set<number>): number[] {
  return markedProcs(base)
    .filter((p) => ids.has(p.jobId) && p.comm === 'sleep')
    .map((p) => p.pid);
}

function listPids(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((n) => n.charCodeAt(0) >= 48 && n.charCodeAt(0) <= 57)
    .map(Number);
}

/**
 * Counts processes that started after construction and now run `sleep ARG` with `needle` in
 * their environment. Cheap enough to poll every few ms without stealing the CPU the agent
 * and the jobs need (only new pids are read, environ only once a cmdline matches).
 */
class SleepWatch {
  private readonly before = new Set(listPids());
  private readonly matched = new Set<number>();
  constructor(
    private readonly arg: string,
    private readonly needle: string,
  ) {}

  count(): number {
    const want = `sleep\0${this.arg}\0`;
    for (const pid of listPids()) {
      if (this.before.has(pid) || this.matched.has(pid)) continue;
      try {
        if (fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1') !== want) continue;
        if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(this.needle)) this.matched.add(pid);
      } catch {
        /* gone */
      }
    }
    return this.matched.size;
  }
}

function pssMb(pid: number): number {
  try {
    const s = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const m = /^Pss:\s+(\d+) kB/m.exec(s);
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

async function submitRate(): Promise<void> {
  await withAgent(async (c) => {
    // A blocker holds the only CPU, so the measured submits queue (the scheduling step still
    // runs on every submit).
    await c.call('configure', { capacity: { cpus: 1 } });
    await c.call('submit', { run: 'sleep 1000', resources: { cpus: 1 } });
    const n = 500;
    const t0 = now();
    for (let i = 0; i < n; i++) {
      const r = await c.call('submit', { name: `job-${i}`, run: 'sleep 1000', resources: { cpus: 1 } });
      if (r.status !== 'PENDING') throw new Error(`unexpected status ${r.status}`);
    }
    const s = (now() - t0) / 1000;
    emit('agent.submit_rate', n / s, 'jobs/s', { jobs: n, seconds: Number(s.toFixed(3)), target: '>= 500' });
  });
}

async function release64(): Promise<void> {
  await withAgent(async (c, fx) => {
    await c.call('configure', { capacity: { cpus: 64 } });
    const blocker = await c.call('submit', { run: 'sleep 999', resources: { cpus: 64 } });
    const ids = new Set<number>();
    for (let i = 0; i < 64; i++) {
      ids.add((await c.call('submit', { run: 'sleep 1000', resources: { cpus: 1 } })).job_id);
    }
    await waitUntil(() => sleepsOf(fx.base, new Set([blocker.job_id])).length === 1, 5000, 'blocker runs');
    const watch = new SleepWatch('1000', `SKYDECK_JOB_MARKER=${markerPrefix(fx.base)}:`);
    const t0 = now();
    let answered = 0;
    const cancelled = c.call('cancel', { job_ids: [blocker.job_id], grace: 10 }).then(() => (answered = now()));
    await waitUntil(() => watch.count() >= 64, 10000, '64 jobs alive', 5);
    const s = (now() - t0) / 1000;
    await cancelled;
    const floor = await plainShellFloor();
    const spawnMs = await spawnCostMs();
    emit('agent.release64_s', s, 's', {
      jobs: 64,
      via: 'blocker cancelled',
      counted: 'until the user command (sleep) of all 64 jobs runs',
      cancel_answered_s: Number(((answered - t0) / 1000).toFixed(4)),
      floor_plain_shell_s: Number(floor.toFixed(4)),
      spawn_sh_true_ms: Number(spawnMs.toFixed(2)),
      target: '<= 0.3',
    });

    // PSS of what Skydeck adds per running job: the sh driver (its session leader). The
    // user's shell running run.sh and the user's command are reported separately.
    const procs = markedProcs(fx.base).filter((p) => ids.has(p.jobId));
    const drivers = procs.filter((p) => p.pid === p.sid);
    const shells = procs.filter((p) => p.pid !== p.sid && p.comm !== 'sleep');
    const driverPss = drivers.reduce((a, p) => a + pssMb(p.pid), 0) / drivers.length;
    const shellPss = shells.reduce((a, p) => a + pssMb(p.pid), 0) / Math.max(1, shells.length);
    emit('agent.pss_per_job_mb', driverPss, 'MB', {
      jobs: drivers.length,
      counted: 'sh driver per job',
      user_shell_mb: Number(shellPss.toFixed(3)),
      target: '<= 0.5',
    });
  });
  await withAgent(async (c, fx) => {
    // Variant: the pending jobs are released by declaring more capacity.
    await c.call('configure', { capacity: { cpus: 1 } });
    await c.call('submit', { run: 'sleep 999', resources: { cpus: 1 } });
    const ids = new Set<number>();
    for (let i = 0; i < 64; i++) {
      ids.add((await c.call('submit', { run: 'sleep 1000', resources: { cpus: 1 } })).job_id);
    }
    const watch = new SleepWatch('1000', `SKYDECK_JOB_MARKER=${markerPrefix(fx.base)}:`);
    const t0 = now();
    await c.call('configure', { capacity: { cpus: 65 } });
    await waitUntil(() => watch.count() >= 64, 10000, '64 jobs alive', 5);
    emit('agent.release64_declared_s', (now() - t0) / 1000, 's', { jobs: 64, via: 'capacity declared' });
  });
}

/**
 * Calibration for release64 on the machine at hand: a plain sh starting the same 64
 * `bash run.sh` (`sleep`) processes in the background, no agent, no drivers.
 */
async function plainShellFloor(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-floor-'));
  fs.writeFileSync(path.join(dir, 'run.sh'), 'sleep 1001\n');
  const watch = new SleepWatch('1001', `SKYDECK_FLOOR=${path.basename(dir)}`);
  const t0 = now();
  const child = spawn('/bin/sh', ['-c', `i=0; while [ $i -lt 64 ]; do bash '${dir}/run.sh' & i=$((i+1)); done; wait`], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, SKYDECK_FLOOR: path.basename(dir) },
  });
  try {
    await waitUntil(() => watch.count() >= 64, 20000, 'floor processes', 5);
    return (now() - t0) / 1000;
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What one process start costs here now (TESTING.md measured 0.7 ms for `sh -c true`). */
async function spawnCostMs(): Promise<number> {
  const out = await python(
    'import os,time\n' +
      't=time.perf_counter()\n' +
      'for _ in range(30): os.waitpid(os.posix_spawn("/bin/sh",["sh","-c","true"],{}),0)\n' +
      'print((time.perf_counter()-t)/30*1000)\n',
  );
  return Number(out);
}

async function cancel10(): Promise<void> {
  await withAgent(async (c, fx) => {
    await c.call('configure', { capacity: { cpus: 10 } });
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) ids.push((await c.call('submit', { run: 'sleep 1000', resources: { cpus: 1 } })).job_id);
    await waitUntil(() => sleepsOf(fx.base, new Set(ids)).length === 10, 5000, '10 jobs alive');
    const pids = markedProcs(fx.base).map((p) => p.pid);
    const t0 = now();
    const answer = c.call('cancel', { job_ids: ids, grace: 10 });
    await waitUntil(() => pids.every((p) => !isAlive(p)), 5000, 'all exited', 1);
    const s = (now() - t0) / 1000;
    await answer;
    emit('agent.cancel10_s', s, 's', { jobs: 10, processes: pids.length, target: '<= 0.1' });
  });
}

async function trapKill(): Promise<void> {
  await withAgent(async (c, fx) => {
    const grace = 1;
    const { job_id } = await c.call('submit', { run: 'trap "" TERM; while true; do sleep 1; done' });
    await waitUntil(() => markedProcs(fx.base, job_id).some((p) => p.comm === 'sleep'), 5000, 'job runs');
    const t0 = now();
    await c.call('cancel', { job_ids: [job_id], grace });
    await waitUntil(() => markedProcs(fx.base, job_id).length === 0, 10000, 'job dead', 2);
    const s = (now() - t0) / 1000;
    emit('agent.trap_kill_over_grace_s', s - grace, 's', { grace_s: grace, total_s: Number(s.toFixed(3)), target: '<= 0.5' });
  });
}

async function queue10k(): Promise<void> {
  await withAgent(async (c) => {
    await c.call('configure', { capacity: { cpus: 1 } });
    await c.call('submit', { run: 'sleep 1000', resources: { cpus: 1 } });
    // 10,000 real submits, pipelined 200 at a time.
    const total = 10000;
    for (let i = 1; i < total; i += 200) {
      const batch: Promise<Json>[] = [];
      for (let j = i; j < Math.min(total, i + 200); j++) {
        batch.push(c.call('submit', { name: `job-${j}`, run: 'sleep 1000', resources: { cpus: 1 } }));
      }
      await Promise.all(batch);
    }
    const full: number[] = [];
    let q: Json;
    for (let i = 0; i < 15; i++) {
      const t0 = now();
      q = await c.call('queue', {});
      full.push(now() - t0);
    }
    if (q.rows.length !== total) throw new Error(`queue returned ${q.rows.length} rows`);
    const delta: number[] = [];
    let cursor = q.cursor;
    for (let i = 0; i < 15; i++) {
      await c.call('cancel', { job_ids: [total - i], grace: 0 });
      const t0 = now();
      const d = await c.call('queue', { since: cursor, db_id: q.db_id });
      delta.push(now() - t0);
      if (d.rows.length !== 1 || d.full) throw new Error(`delta returned ${d.rows.length} rows`);
      cursor = d.cursor;
    }
    emit('agent.queue_full_10k_ms', median(full), 'ms', { jobs: total, runs: full.length, min: Number(Math.min(...full).toFixed(2)), target: '<= 50' });
    emit('agent.queue_delta_10k_ms', median(delta), 'ms', { jobs: total, changed: 1, runs: delta.length, min: Number(Math.min(...delta).toFixed(2)), target: '<= 5' });
  });
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const all: [string, () => Promise<void>][] = [
    ['submit', submitRate],
    ['release', release64],
    ['cancel', cancel10],
    ['trap', trapKill],
    ['queue', queue10k],
  ];
  for (const [name, fn] of all) {
    if (only.length && !only.includes(name)) continue;
    await fn();
    await sleep(200);
  }
}

runBench(main);
