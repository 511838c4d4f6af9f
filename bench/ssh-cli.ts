// `skydeck exec` from a fresh CLI process on an UP ssh cluster → first output, cold (no
// connection holder running) and warm (the holder keeps the SSH connection open). Needs root,
// openssh-server and a built dist/ (npm run build). `tsx bench/ssh-cli.ts [runs]`.
// SKYDECK_BENCH_CLIS="before=/path/to/old/cli.js,after=dist/cli.js" times several builds
// interleaved (one run of each in turn), so a loaded machine weighs on all of them alike.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import YAML from 'yaml';
import { down, launch } from '../src/core/ops';
import { sshBenchHost } from './sshBenchHost';
import { runBench } from './runBench';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => os.loadavg().map((l) => Math.round(l * 100) / 100);

const TIME = '/usr/bin/time';

/**
 * Runs a CLI; resolves with ms from spawn to the first byte on stdout and, where /usr/bin/time
 * exists, the CPU ms (user + sys) the CLI process used: on a loaded machine the wall figure
 * mostly measures the queue for a core, the CPU figure what the CLI itself costs.
 */
export function cliFirstOutput(cli: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; cpuMs?: number }> {
  return new Promise((resolve, reject) => {
    const timeFile = fs.existsSync(TIME) ? path.join(os.tmpdir(), `skydeck-bench-time-${process.pid}`) : undefined;
    const argv = [process.execPath, cli, ...args];
    const t0 = performance.now();
    const wall0 = performance.timeOrigin + t0;
    const child = timeFile
      ? spawn(TIME, ['-f', '%U %S', '-o', timeFile, ...argv], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(argv[0], argv.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let first: number | undefined;
    let err = '';
    child.stdout.once('data', () => (first = performance.now() - t0));
    const traceOut = (ms: number): string => `[trace bench] ${(ms % 100_000).toFixed(1).padStart(8)}`;
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      if (first === undefined || code !== 0) return reject(new Error(`cli ${args[0]} exit ${code}: ${err}`));
      const cpu = timeFile ? fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number) : undefined;
      if (timeFile) fs.rmSync(timeFile, { force: true });
      // SKYDECK_TRACE=1: the run's step lines (src/core/util/trace.ts), from the spawn on.
      if (env.SKYDECK_TRACE === '1' || process.env.SKYDECK_TRACE === '1') {
        process.stderr.write(`${traceOut(wall0)}  spawn\n${err.split('\n').filter((l) => l.startsWith('[trace') || l.startsWith('[skydeck] fast path')).join('\n')}\n${traceOut(wall0 + first)}  first byte on stdout\n\n`);
      }
      resolve({ ms: first, ...(cpu ? { cpuMs: (cpu[0] + cpu[1]) * 1000 } : {}) });
    });
  });
}

/** Stops the holder serving `dir` (the bench's own), waiting until its socket is gone. */
export async function stopHolder(dir: string): Promise<void> {
  const pidFile = path.join(dir, 'holder.pid');
  const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0;
  if (pid > 0) {
    try { process.kill(pid, 'SIGTERM'); } catch { /* already gone */ }
  }
  for (let i = 0; i < 100 && fs.existsSync(path.join(dir, 'holder.sock')); i++) await new Promise((r) => setTimeout(r, 20));
}

/**
 * Waits (up to 20 s) for the holder a cold run started to answer, then WARM_MS more for its
 * first worker to warm up (a user's next command comes seconds later), so the next run is warm.
 */
export async function waitHolder(dir: string): Promise<void> {
  for (let i = 0; i < 400 && !fs.existsSync(path.join(dir, 'holder.sock')); i++) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, WARM_MS));
}
const WARM_MS = Number(process.env.SKYDECK_BENCH_WARM_MS ?? 3000);

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 7);
  const clis = (process.env.SKYDECK_BENCH_CLIS ?? `after=${path.resolve(__dirname, '../dist/cli.js')}`)
    .split(',').map((s) => s.split('=') as [string, string]);
  for (const [, c] of clis) if (!fs.existsSync(c)) throw new Error(`${c} missing: run "npm run build" first`);
  const { hosts, h, ops, ws } = await sshBenchHost();
  const holderDir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-holder-'));
  const hello = path.join(ws, 'hello.yaml');
  fs.writeFileSync(hello, YAML.stringify({ run: 'echo hello' }));
  try {
    fs.writeFileSync(path.join(ws, 'up.yaml'), YAML.stringify({ resources: { cloud: 'ssh' }, run: 'true' }));
    await launch(ops, { taskFile: path.join(ws, 'up.yaml'), cluster: 'b' });
    const poolsFile = path.join(ws, 'pools.yaml');
    fs.writeFileSync(poolsFile, YAML.stringify({ bench: { hosts: [`${h.user}@${h.address}:${h.port}`], identity_file: hosts.clientKeyPath } }));
    const env = { SKYDECK_WORKSPACE: ws, SKYDECK_SSH_POOLS: poolsFile, SKYDECK_KNOWN_HOSTS: path.join(ws, 'known_hosts'), SKYDECK_HOLDER_DIR: holderDir };
    // A thin dist/cli.js (thin.ts) runs dist/cli-main.js beside it, which has the holder.
    const full = (c: string): string => (fs.existsSync(path.join(path.dirname(c), 'cli-main.js')) ? path.join(path.dirname(c), 'cli-main.js') : c);
    const hasHolder = new Map(clis.map(([l, c]) => [l, fs.readFileSync(full(c), 'utf8').includes('__holder')]));
    const before = load();
    type Times = { ms: number; cpuMs?: number };
    const cold = new Map<string, Times[]>(clis.map(([l]) => [l, []]));
    const warm = new Map<string, Times[]>(clis.map(([l]) => [l, []]));
    for (let i = 0; i < runs; i++) {
      for (const [label, cli] of clis) {
        await stopHolder(holderDir);
        cold.get(label)!.push(await cliFirstOutput(cli, ['exec', 'b', hello], env));
        // The cold run started the holder (a build that has one); the next run finds it.
        if (hasHolder.get(label)) await waitHolder(holderDir);
        warm.get(label)!.push(await cliFirstOutput(cli, ['exec', 'b', hello], env));
      }
    }
    await stopHolder(holderDir);
    for (const [label] of clis) {
      const emit = (figure: string, xs: Times[], note: string): void => {
        const cpu = xs.every((x) => x.cpuMs !== undefined) ? { cpu_ms_median: Math.round(median(xs.map((x) => x.cpuMs!))) } : {};
        console.log(JSON.stringify({
          figure, value: Math.round(median(xs.map((x) => x.ms))), unit: 'ms', runs, all: xs.map((x) => Math.round(x.ms)), ...cpu,
          build: label, loadavg_before: before, loadavg_after: load(), note,
        }));
      };
      emit('ssh.exec_first_output_ms', warm.get(label)!, 'fresh CLI process, second of two runs (holder warm, if the build has one)');
      emit('ssh.exec_first_output_cold_ms', cold.get(label)!, 'fresh CLI process, no holder running');
    }
  } finally {
    await stopHolder(holderDir);
    await down(ops, 'b', { graceSeconds: 0, purge: true }).catch(() => undefined);
    await ops.dispose();
    await hosts.stop();
    fs.rmSync(holderDir, { recursive: true, force: true });
  }
}

if (require.main === module) runBench(main);
