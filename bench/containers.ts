// Container clusters against plain ones, on this machine's local cloud, in one run: a plain
// cluster and an `image_id: docker:<test image>` cluster (podman), rounds interleaved.
// Prints {"figure": "containers.exec_first_output_ratio", ...} (container ÷ plain time from
// `exec` to the first output byte; goal ≤ 1.2) and "containers.submit_rate_ratio" (container ÷
// plain detached submits per second; goal ≥ 0.8). Run: npm run bench:containers
// Both are wall-clock figures, which on a loaded host measure how the scheduler weighs the
// container's cgroup (one group) against the host's processes (each its own share), more than
// the work done; "containers.cpu_per_job_ratio" is the CPU time per job, container ÷ plain, as
// the kernel accounts it (cpuAccount.ts), which other programs' load does not move.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { down, exec, launch } from '../src/core/ops';
import { testOps, writeTask } from '../test/integration/ops/helpers';
import { podmanProblem, testImage } from '../test/support/containers/testImage';
import { runBench } from './runBench';
import { openCpuAccount } from './cpuAccount';
import { requireCluster } from '../src/core/ops/findCluster';
import { readHandle } from '../src/core/ops/clusterHandle';
import { TERMINAL_STATUSES } from '../src/core/jobs/protocol';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 8);
const SUBMITS = Number(process.env.BENCH_SUBMITS || 20);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const r4 = (x: number) => Number(x.toFixed(4));

async function main(): Promise<void> {
  // First: every process the bench starts from here on is accounted to it.
  const cpu = openCpuAccount();
  const problem = podmanProblem();
  if (problem) throw new Error(`bench:containers needs podman: ${problem}`);
  const image = testImage();
  const ops = await testOps({ root: fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-ctr-')) });
  const ws = ops.workspaceRoot;
  const clusters = { plain: 'plain', container: 'ctr' } as const;
  try {
    await launch(ops, { taskFile: writeTask(ws, 'p.yaml', 'resources: {cloud: local}\nrun: echo up\n'), cluster: clusters.plain });
    await launch(ops, { taskFile: writeTask(ws, 'c.yaml', `resources: {cloud: local, image_id: "docker:${image}"}\nrun: echo up\n`), cluster: clusters.container });
    const hi = writeTask(ws, 'hi.yaml', 'run: echo hi\n');
    const first: Record<string, number[]> = { plain: [], container: [] };
    const rate: Record<string, number[]> = { plain: [], container: [] };
    const cpuNs: Record<string, number[]> = { plain: [], container: [] };
    const { runtime, name } = readHandle(await requireCluster(ops, clusters.container)).container!;
    const used = (kind: 'plain' | 'container') => ('problem' in cpu ? 0 : cpu.self() + (kind === 'container' ? cpu.container(runtime, name) : 0));
    // A phase ends when its jobs have: a detached job still running would be counted in the next.
    const settled = async (kind: 'plain' | 'container') => {
      const client = ops.connections.client(await requireCluster(ops, clusters[kind]));
      while ((await client.queueSnapshot()).some((j) => !TERMINAL_STATUSES.has(j.status))) await new Promise((r) => setTimeout(r, 100));
    };
    for (let i = 0; i < ROUNDS; i++) {
      for (const kind of ['plain', 'container'] as const) {
        const c0 = used(kind);
        const t0 = performance.now();
        let seen = 0;
        await exec(ops, { cluster: clusters[kind], taskFile: hi, onOutput: () => { seen ||= performance.now(); } });
        first[kind].push(seen - t0);
        const t1 = performance.now();
        await Promise.all(Array.from({ length: SUBMITS }, () => exec(ops, { cluster: clusters[kind], taskFile: hi, detach: true })));
        rate[kind].push(SUBMITS / ((performance.now() - t1) / 1000));
        await settled(kind);
        cpuNs[kind].push((used(kind) - c0) / (SUBMITS + 1));
      }
    }
    const out = (figure: string, value: number, extra: Record<string, unknown>) => process.stdout.write(JSON.stringify({ figure, value: r4(value), ...extra }) + '\n');
    out('containers.exec_first_output_ratio', median(first.container) / median(first.plain), {
      unit: 'ratio', container_ms: r4(median(first.container)), plain_ms: r4(median(first.plain)), rounds: ROUNDS, target: 1.2,
    });
    out('containers.submit_rate_ratio', median(rate.container) / median(rate.plain), {
      unit: 'ratio', container_per_s: r4(median(rate.container)), plain_per_s: r4(median(rate.plain)), submits: SUBMITS, rounds: ROUNDS, target: 0.8,
    });
    if ('problem' in cpu) out('containers.cpu_per_job_ratio', NaN, { unit: 'ratio', skipped: cpu.problem });
    else {
      out('containers.cpu_per_job_ratio', median(cpuNs.container) / median(cpuNs.plain), {
        unit: 'ratio', container_cpu_ms: r4(median(cpuNs.container) / 1e6), plain_cpu_ms: r4(median(cpuNs.plain) / 1e6), rounds: ROUNDS,
      });
    }
  } finally {
    for (const c of Object.values(clusters)) await down(ops, c, { graceSeconds: 0, purge: true }).catch(() => undefined);
    if (!('problem' in cpu)) cpu.close();
    await ops.dispose();
    fs.rmSync(ws, { recursive: true, force: true });
  }
}

runBench(main);
