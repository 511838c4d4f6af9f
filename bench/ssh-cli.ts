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
import { startHosts } from '../test/hosts';
import { down, launch } from '../src/core/ops';
import { testOps } from '../test/integration/ops/helpers';
import { runBench } from './runBench';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => os.loadavg().map((l) => Math.round(l * 100) / 100);

/** Runs a CLI and resolves with ms from spawn to the first byte on stdout. */
export function cliFirstOutput(cli: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let first: number | undefined;
    let err = '';
    child.stdout.once('data', () => (first = performance.now() - t0));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (first !== undefined && code === 0 ? resolve(first) : reject(new Error(`cli ${args[0]} exit ${code}: ${err}`))));
  });
}

/** Stops the holder serving `dir` (the bench's own), waiting until its socket is gone. */
async function stopHolder(dir: string): Promise<void> {
  const pidFile = path.join(dir, 'holder.pid');
  const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0;
  if (pid > 0) {
    try { process.kill(pid, 'SIGTERM'); } catch { /* already gone */ }
  }
  for (let i = 0; i < 100 && fs.existsSync(path.join(dir, 'holder.sock')); i++) await new Promise((r) => setTimeout(r, 20));
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 7);
  const clis = (process.env.SKYDECK_BENCH_CLIS ?? `after=${path.resolve(__dirname, '../dist/cli.js')}`)
    .split(',').map((s) => s.split('=') as [string, string]);
  for (const [, c] of clis) if (!fs.existsSync(c)) throw new Error(`${c} missing: run "npm run build" first`);
  const hosts = await startHosts(1);
  const h = hosts.hosts[0];
  const pool = { name: 'bench', hosts: [{ address: h.address, port: h.port, user: h.user, identityFile: hosts.clientKeyPath }] };
  const noSsh = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-nossh-'));
  const ops = await testOps({ pools: [pool], connections: { sshDefaults: { agent: false, sshDir: noSsh, userKnownHostsFiles: [] } } });
  const ws = ops.workspaceRoot;
  const holderDir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-holder-'));
  fs.writeFileSync(path.join(ws, 'known_hosts'), hosts.knownHostsLine(h) + '\n');
  const hello = path.join(ws, 'hello.yaml');
  fs.writeFileSync(hello, YAML.stringify({ run: 'echo hello' }));
  try {
    fs.writeFileSync(path.join(ws, 'up.yaml'), YAML.stringify({ resources: { cloud: 'ssh' }, run: 'true' }));
    await launch(ops, { taskFile: path.join(ws, 'up.yaml'), cluster: 'b' });
    const poolsFile = path.join(ws, 'pools.yaml');
    fs.writeFileSync(poolsFile, YAML.stringify({ bench: { hosts: [`${h.user}@${h.address}:${h.port}`], identity_file: hosts.clientKeyPath } }));
    const env = { SKYDECK_WORKSPACE: ws, SKYDECK_SSH_POOLS: poolsFile, SKYDECK_KNOWN_HOSTS: path.join(ws, 'known_hosts'), SKYDECK_HOLDER_DIR: holderDir };
    const before = load();
    const cold = new Map<string, number[]>(clis.map(([l]) => [l, []]));
    const warm = new Map<string, number[]>(clis.map(([l]) => [l, []]));
    for (let i = 0; i < runs; i++) {
      for (const [label, cli] of clis) {
        await stopHolder(holderDir);
        cold.get(label)!.push(await cliFirstOutput(cli, ['exec', 'b', hello], env));
        // The cold run started the holder (a build that has one); the next run finds it.
        warm.get(label)!.push(await cliFirstOutput(cli, ['exec', 'b', hello], env));
      }
    }
    await stopHolder(holderDir);
    for (const [label] of clis) {
      const extra = (xs: number[]) => ({ runs, all: xs.map(Math.round), build: label, loadavg_before: before, loadavg_after: load() });
      console.log(JSON.stringify({ figure: 'ssh.exec_first_output_ms', value: Math.round(median(warm.get(label)!)), unit: 'ms', ...extra(warm.get(label)!), note: 'fresh CLI process, second of two runs (holder warm, if the build has one)' }));
      console.log(JSON.stringify({ figure: 'ssh.exec_first_output_cold_ms', value: Math.round(median(cold.get(label)!)), unit: 'ms', ...extra(cold.get(label)!), note: 'fresh CLI process, no holder running' }));
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
