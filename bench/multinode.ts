// Multi-node benchmark: submit → every rank running, on a 4-node loopback cluster (the head
// agent on this machine + 3 real sshd workers). Needs root (the sshd test hosts).
// Prints {"figure": "multinode.all_ranks_running_s", "value", "unit": "s", ...}: each round
// starts once the machine is quiet again (waitCpuIdle: on 2 cores the cancelled round's
// teardown, its kills on every worker, would otherwise be timed too), and
// multinode.back_to_back_s: rounds started the moment the last one was CANCELLED.
// Run: npm run bench:multinode
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startGangCluster } from '../test/integration/multinode/agentFixture';
import { waitStatus } from '../test/unit/agent/helpers';
import { runBench } from './runBench';
import { waitCpuIdle } from './cpuIdle';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 10);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main(): Promise<void> {
  const g = await startGangCluster({ workers: 3, cpusPerNode: 1 });
  // The ranks run as different users: a world-writable (sticky) directory for their "I run" marks.
  const marks = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-mn-'));
  fs.chmodSync(marks, 0o1777);
  const times: number[] = [];
  const backToBack: number[] = [];
  let busy = 0;
  /** Submit → every rank has written its mark, in seconds; then cancelled. */
  const round = async (): Promise<number> => {
    const t0 = performance.now();
    const { job_id } = await g.client.call('submit', {
      num_nodes: 4, resources: { cpus: 1 },
      run: `touch "${marks}/$SKYDECK_JOB_ID-$SKYPILOT_NODE_RANK"; exec sleep 60`,
    });
    const want = [0, 1, 2, 3].map((r) => path.join(marks, `${job_id}-${r}`));
    while (!want.every((f) => fs.existsSync(f))) {
      if (performance.now() - t0 > 30_000) throw new Error(`job ${job_id}: not every rank started within 30 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
    const s = (performance.now() - t0) / 1000;
    await g.client.call('cancel', { job_ids: [job_id], grace: 0 });
    await waitStatus(g.client, job_id, 'CANCELLED');
    return s;
  };
  try {
    for (let i = 0; i < ROUNDS; i++) {
      if (!(await waitCpuIdle())) busy++;
      times.push(await round());
    }
    for (let i = 0; i < ROUNDS; i++) backToBack.push(await round());
  } finally {
    await g.stop();
    fs.rmSync(marks, { recursive: true, force: true });
  }
  const r = (x: number) => Number(x.toFixed(4));
  const line = (figure: string, xs: number[], extra: Record<string, unknown>) => process.stdout.write(JSON.stringify({
    figure, value: r(median(xs)), unit: 's', nodes: 4, rounds: ROUNDS, first: r(xs[0]), min: r(Math.min(...xs)), max: r(Math.max(...xs)), ...extra,
  }) + '\n');
  line('multinode.all_ranks_running_s', times, { target: 0.5, rounds_on_a_busy_machine: busy, note: 'each round starts once the CPUs are quiet' });
  line('multinode.back_to_back_s', backToBack, { note: 'each round starts as the last is CANCELLED (its teardown runs alongside)' });
}

runBench(main);
