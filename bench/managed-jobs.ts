// Benchmark: the managed-jobs controller on the fake cloud (as aws; its instances are this
// machine). 256 jobs submitted back to back: submit → the job's cluster launch started (the
// cloud's RunInstances), p50; then all 256 cancelled at once → every job CANCELLED and every
// cluster torn down with proof. One JSON line per figure.
//   npx tsx bench/managed-jobs.ts   (MJ_JOBS=256 MJ_SLOTS=<parallel launches>)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StateStore } from '../src/core/state';
import { staticProviders, type RunRequest } from '../src/core/clouds/provider';
import { Connections, localAgentBootstrap, type OpsContext } from '../src/core/ops';
import { scaledClock } from '../src/core/provision';
import { ManagedController } from '../src/core/managed';
import { FakeProvider } from '../test/support/fakeCloud/fakeProvider';
import { leaks } from '../test/support/fakeCloud/harness';
import { cleanupBase } from '../test/unit/agent/helpers';
import { runBench } from './runBench';

function emit(figure: string, value: number, unit: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ figure, value: Number(value.toFixed(3)), unit, ...extra }));
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

async function main(): Promise<void> {
  const n = Number(process.env.MJ_JOBS ?? 256);
  const slots = process.env.MJ_SLOTS ? Number(process.env.MJ_SLOTS) : undefined;
  process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "bench: shutdown skipped"';
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-mj-'));
  const clock = scaledClock(100);
  const started = new Map<string, number>();
  class Recording extends FakeProvider {
    override runInstances(req: RunRequest) {
      const name = req.tags['skydeck-cluster'];
      if (!started.has(name)) started.set(name, performance.now());
      return super.runInstances(req);
    }
  }
  const cloud = new Recording({ cloud: 'aws', clock });
  const ctx: OpsContext = {
    store: await StateStore.openWorkspace(root), workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
    connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts') }),
    progress: () => undefined, log: () => undefined, warn: () => undefined, user: 'bench',
    providers: staticProviders(cloud), clock, timing: { confirmTimeoutMs: 20 * 60_000 },
  };
  ctx.bootstrap = localAgentBootstrap(ctx);
  const ctl = await ManagedController.open(ctx, { pollMs: 2_000, ...(slots ? { maxParallelLaunches: slots } : {}) });
  await ctl.start();
  const heap0 = process.memoryUsage().heapUsed;
  const submitted = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    submitted.set(await ctl.submit({ tasks: ['resources:\n  infra: aws/r1\nrun: sleep 600\n'], name: 'b' }), t);
  }
  const submitS = (performance.now() - [...submitted.values()][0]) / 1000;
  const end = performance.now() + 300_000;
  while (started.size < n && performance.now() < end) await new Promise((r) => setTimeout(r, 20));
  const waits = [...submitted].map(([id, t]) => (started.get(`b-mj${id}-1`) ?? Infinity) - t);
  emit('jobs.schedule_s', pct(waits, 0.5) / 1000, 's', { p90: pct(waits, 0.9) / 1000, jobs: n, launches_started: started.size, slots: ctl.opts.maxParallelLaunches, submit_all_s: submitS });
  emit('jobs.controller_heap_mb_per_job', (process.memoryUsage().heapUsed - heap0) / 1e6 / n, 'MB', { note: 'in-process heap while every launch is in flight; no separate controller process yet' });
  const t0 = performance.now();
  await Promise.all([...submitted.keys()].map((id) => ctl.cancel(id)));
  await ctl.whenIdle();
  const jobs = (await ctl.list()).jobs;
  emit('jobs.cancel256_s', (performance.now() - t0) / 1000, 's', {
    jobs: n, cancelled: jobs.filter((j) => j.status === 'CANCELLED' && !j.clusterName).length, leaks: (await leaks({ store: ctx.store, cloud })).length,
  });
  await ctl.stop();
  await ctx.connections.closeAll();
  ctx.store.close();
  await cleanupBase(root);
}

runBench(main);
