// Kubernetes benchmark on the kit's real single-node cluster (test/k8s/kit): launch until the
// job's first output, a warm exec's first output (the connection already open, as in the
// editor), and log throughput through the exec stream. Needs root (the kit runs containerd and
// the kubelet). Joins a kit already up in /tmp/skydeck-k8s-kit and leaves it up; otherwise
// starts one and takes it down. `npm run bench:k8s` holds /tmp/skydeck-k8s-test.lock, the lock
// every kit test run takes, so runs never overlap.
import * as fs from 'node:fs';
import { staticProviders } from '../src/core/clouds/provider';
import { createKubernetesProvider } from '../src/core/clouds/kubernetes';
import { down, exec, launch, logs } from '../src/core/ops';
import { testOps, writeTask, type TestOps } from '../test/integration/ops/helpers';
import { joinOrStartKit, kitAlreadyUp, kitProviderEnv, releaseKit, KIT_RUN_DIR } from '../test/support/k8sKit';
import { runBench } from './runBench';

const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS || 3));
const LOG_MB = Number(process.env.BENCH_LOG_MB || 64);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const r4 = (x: number) => Number(x.toFixed(4));
const emit = (figure: string, value: number, unit: string, more: Record<string, unknown>) =>
  process.stdout.write(JSON.stringify({ figure, value: r4(value), unit, ...more }) + '\n');
/** Where the time goes, on stderr (the profile), so stdout stays JSON lines. */
const profile = (what: string, marks: [string, number][]) =>
  process.stderr.write(`[profile] ${what}: ${marks.map(([l, t]) => `+${Math.round(t)}ms ${l}`).join(' | ')}\n`);

async function opsFor(): Promise<TestOps> {
  const ops = await testOps();
  ops.providers = staticProviders(createKubernetesProvider());
  return ops;
}

/** ms from start until the first output byte of a launch (a fresh pod each time). */
async function launchOnce(ops: TestOps, name: string): Promise<number> {
  const task = writeTask(ops.workspaceRoot, `${name}.yaml`, 'name: b\nresources: {infra: k8s}\nrun: echo first-output\n');
  const t0 = performance.now();
  const marks: [string, number][] = [];
  ops.progress = (l) => marks.push([l, performance.now() - t0]);
  let first = 0;
  const r = await launch(ops, { taskFile: task, cluster: name, onOutput: () => (first ||= performance.now() - t0) });
  ops.progress = () => undefined;
  if (r.final?.status !== 'SUCCEEDED' || !first) throw new Error(`launch of ${name} did not succeed: ${JSON.stringify(r.final)}`);
  marks.push(['first output', first]);
  profile(`launch ${name}`, marks);
  return first;
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('the Kubernetes kit needs root: run `sudo npm run bench:k8s`');
  const joined = await kitAlreadyUp();
  process.stderr.write(joined ? `joining the kit already up in ${KIT_RUN_DIR} (it stays up)\n` : `starting a kit in ${KIT_RUN_DIR} (~30 s warm; it goes down at the end)\n`);
  const kit = await joinOrStartKit();
  Object.assign(process.env, kitProviderEnv(kit));
  const ops = await opsFor();
  const names: string[] = [];
  try {
    const launches: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const name = `bench-k8s-${process.pid}-${i}`;
      names.push(name);
      launches.push(await launchOnce(ops, name));
      // The pods of all but the last go now, so the node runs one at a time.
      if (i < ROUNDS - 1) await down(ops, name, { graceSeconds: 1 });
    }
    emit('k8s.launch_s', median(launches) / 1000, 's', { rounds: ROUNDS, all_s: launches.map((x) => r4(x / 1000)), target: '<= 5' });

    const cluster = names[names.length - 1];
    const echo = writeTask(ops.workspaceRoot, 'echo.yaml', 'name: e\nrun: echo warm\n');
    // One exec first so the agent connection is open (the editor keeps it so).
    await exec(ops, { cluster, taskFile: echo, envs: {} });
    const firsts: number[] = [];
    for (let i = 0; i < Math.max(ROUNDS, 5); i++) {
      const t0 = performance.now();
      let first = 0;
      const r = await exec(ops, { cluster, taskFile: echo, envs: {}, onOutput: () => (first ||= performance.now() - t0) });
      if (r.final?.status !== 'SUCCEEDED' || !first) throw new Error(`exec ${i} did not succeed`);
      firsts.push(first);
    }
    emit('k8s.exec_first_output_ms', median(firsts), 'ms', { rounds: firsts.length, all_ms: firsts.map(r4), target: '<= 300' });

    // A job writes LOG_MB MiB to its log; following it through the agent's exec stream is timed.
    const big = writeTask(ops.workspaceRoot, 'big.yaml', `name: big\nrun: yes \"$(printf '%01023d' 0)\" | head -c ${LOG_MB * 1048576}\n`);
    const job = await exec(ops, { cluster, taskFile: big, envs: {} });
    if (job.final?.status !== 'SUCCEEDED') throw new Error('the log-writing job failed');
    const rates: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      let bytes = 0;
      const t0 = performance.now();
      await logs(ops, { cluster, jobId: job.jobId, onOutput: (d) => (bytes += d.length) });
      const s = (performance.now() - t0) / 1000;
      if (bytes < LOG_MB * 1048576) throw new Error(`logs gave ${bytes} bytes, expected ${LOG_MB} MiB`);
      rates.push(bytes / 1048576 / s);
    }
    emit('k8s.log_mb_s', median(rates), 'MiB/s', { rounds: ROUNDS, mib: LOG_MB, all: rates.map(r4), target: '>= 30' });
  } finally {
    for (const n of names.slice(-1)) await down(ops, n, { graceSeconds: 1 }).catch((e) => process.stderr.write(`down ${n}: ${(e as Error).message}\n`));
    await ops.dispose();
    fs.rmSync(ops.workspaceRoot, { recursive: true, force: true });
    if (!joined) {
      delete process.env.SKYDECK_K8S_KEEP;
      await releaseKit();
    }
  }
}

runBench(main);
