// Skydeck over a real loopback sshd host, plus the local cloud (npm run bench:ssh; needs root
// and openssh-server). One JSON line per figure; everything it starts is stopped at the end.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import YAML from 'yaml';
import { cancel, down, exec, launch, status } from '../src/core/ops';
import { sshBenchHost } from './sshBenchHost';
import { runBench } from './runBench';
import { cliFirstOutput, stopHolder, waitHolder } from './ssh-cli';
import { syncFigures } from './syncFigures';

function emit(figure: string, value: number, unit: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ figure, value: Math.round(value * 1000) / 1000, unit, ...extra }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs the built CLI and resolves with ms from spawn to the first byte of job output on stdout. */
const cliOutputMs = async (args: string[], env: NodeJS.ProcessEnv): Promise<number> => (await cliFirstOutput(path.resolve(__dirname, '../dist/cli.js'), args, env)).ms;

async function main(): Promise<void> {
  if (!fs.existsSync(path.resolve(__dirname, '../dist/cli.js'))) throw new Error('run "npm run build" first: the benchmark times the built CLI');
  const { hosts, h, ops, ws } = await sshBenchHost();
  const task = (name: string, body: object) => {
    const f = path.join(ws, `${name}.yaml`);
    fs.writeFileSync(f, YAML.stringify(body));
    return f;
  };
  try {
    await launch(ops, { taskFile: task('up', { resources: { cloud: 'ssh' }, run: 'true' }), cluster: 'b' });
    const client = ops.connections.client((await status(ops))[0].cluster);
    const cap = ((await client.status()) as { capacity: { cpus: number } }).capacity.cpus;

    // Submits queue behind a job holding every CPU, so this times the submit path alone.
    await client.submit({ run: 'sleep 600', resources: { cpus: cap } });
    const n = 500;
    let t0 = performance.now();
    for (let i = 0; i < n; i++) await client.submit({ name: `s${i}`, run: 'true', resources: { cpus: 1 } });
    emit('ssh.submit_rate', n / ((performance.now() - t0) / 1000), 'jobs/s', { n });

    // queue round trip with ~1,000 jobs on the node.
    for (let i = 0; i < 500; i++) await client.submit({ name: `q${i}`, run: 'true', resources: { cpus: 1 } });
    const rpcTimes: number[] = [];
    for (let i = 0; i < 20; i++) {
      t0 = performance.now();
      const rows = await client.queueSnapshot();
      rpcTimes.push(performance.now() - t0);
      if (rows.length < 1000) throw new Error(`queue returned ${rows.length} rows`);
    }
    emit('ssh.queue_1k_ms', median(rpcTimes), 'ms', { runs: 20 });
    await client.cancel({ all: true }, 0);

    // 200 concurrent execs from one process.
    const quick = task('quick', { resources: { cpus: 0.01 }, run: 'true' });
    const res = await Promise.allSettled(Array.from({ length: 200 }, () => exec(ops, { cluster: 'b', taskFile: quick, detach: true })));
    emit('ssh.concurrent_exec_ok', res.filter((r) => r.status === 'fulfilled').length, 'of 200');
    await cancel(ops, 'b', { all: true }, 0);

    // Streaming a 200 MB log: write it first, then time the follow from byte 0.
    const big = await client.submit({ run: 'yes "skydeck log line 0123456789 abcdefghij" | head -c 200000000', resources: { cpus: 0.01 } });
    await client.followLogs(big.job_id, () => undefined, { follow: true });
    let bytes = 0;
    t0 = performance.now();
    await client.followLogs(big.job_id, (d) => (bytes += d.length), { follow: false });
    const secs = (performance.now() - t0) / 1000;
    if (bytes !== 200_000_000) throw new Error(`log stream delivered ${bytes} bytes`);
    emit('ssh.log_mb_s', bytes / 1e6 / secs, 'MB/s', { mb: 200 });

    // The editor's case: exec on a cluster whose connection is already open → first output.
    const hello0 = task('hello0', { run: 'echo hello' });
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t1 = performance.now();
      let first = 0;
      await exec(ops, { cluster: 'b', taskFile: hello0, onOutput: () => (first ||= performance.now() - t1) });
      warm.push(first);
    }
    emit('ssh.exec_first_output_warm_ms', median(warm), 'ms', { runs: 5, all: warm.map(Math.round), note: 'connection already open, as in the editor' });

    // exec with a workdir of 20,000 files (500 MB) after editing one file: only it is sent.
    await syncFigures(ops, ws, 'b', task, 5);
    await cancel(ops, 'b', { all: true }, 0);

    // `skydeck exec` from a fresh CLI process on the UP cluster → first output line.
    const poolsFile = path.join(ws, 'pools.yaml');
    fs.writeFileSync(poolsFile, YAML.stringify({ bench: { hosts: [`${h.user}@${h.address}:${h.port}`], identity_file: hosts.clientKeyPath } }));
    const holderDir = path.join(ws, 'holder');
    const cliEnv = { SKYDECK_WORKSPACE: ws, SKYDECK_SSH_POOLS: poolsFile, SKYDECK_KNOWN_HOSTS: path.join(ws, 'known_hosts'), SKYDECK_HOLDER_DIR: holderDir };
    const hello = task('hello', { run: 'echo hello' });
    const cli = path.resolve(__dirname, '../dist/cli.js');
    // The first run finds no connection holder: it connects directly and starts one.
    const cold = await cliFirstOutput(cli, ['exec', 'b', hello], cliEnv);
    emit('ssh.exec_first_output_cold_ms', cold.ms, 'ms', { runs: 1, cpu_ms: cold.cpuMs, loadavg: os.loadavg(), note: 'fresh CLI process, no holder: node start, state, SSH handshake included' });
    await waitHolder(holderDir);
    const execTimes: { ms: number; cpuMs?: number }[] = [];
    for (let i = 0; i < 5; i++) execTimes.push(await cliFirstOutput(cli, ['exec', 'b', hello], cliEnv));
    await stopHolder(holderDir);
    emit('ssh.exec_first_output_ms', median(execTimes.map((x) => x.ms)), 'ms', {
      runs: 5, all: execTimes.map((x) => Math.round(x.ms)), cpu_ms: execTimes.map((x) => Math.round(x.cpuMs ?? NaN)), loadavg: os.loadavg(),
      note: 'fresh CLI process, connection holder warm: node start, state, agent check on the node included; bench/ssh-cli.ts compares builds',
    });

    // `skydeck launch` on the local cloud, fresh workspace each time → first output.
    const launchTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const lws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-local-'));
      const t = path.join(lws, 'task.yaml');
      fs.writeFileSync(t, 'resources: {cloud: local}\nrun: echo first line\n');
      launchTimes.push((await cliOutputMs(['launch', t, '-c', 'l'], { SKYDECK_WORKSPACE: lws })) / 1000);
      await cliOutputMs(['down', 'l', '-y'], { SKYDECK_WORKSPACE: lws }).catch(() => undefined);
      fs.rmSync(lws, { recursive: true, force: true });
    }
    emit('local.launch_first_output_s', median(launchTimes), 's', { runs: 3 });
  } finally {
    await down(ops, 'b', { graceSeconds: 0, purge: true }).catch(() => undefined);
    await ops.dispose();
    await hosts.stop();
  }
}

runBench(main);
