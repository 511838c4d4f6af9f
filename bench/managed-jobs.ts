// Benchmark: the managed-jobs controller on the fake cloud (as aws; its instances are this
// machine). 256 jobs submitted back to back: submit → the job's cluster launch started (the
// cloud's RunInstances), p50; then MJ_RECOVER of them preempted by the cloud: the controller
// noticing (the job recorded RECOVERING) → its replacement's RunInstances, p50; then all
// cancelled at once → every job CANCELLED and every cluster torn down with proof. One JSON
// line per figure.
//   npx tsx bench/managed-jobs.ts   (MJ_JOBS=256 MJ_SLOTS=<parallel setups> MJ_RECOVER=8)
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
  const recover = Number(process.env.MJ_RECOVER ?? 8);
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
  const noticed = new Map<number, number>();
  const move = ctl.move.bind(ctl);
  ctl.move = (id, to, ...rest) => {
    if (to === 'RECOVERING' && !noticed.has(id)) noticed.set(id, performance.now());
    return move(id, to, ...rest);
  };
  const mem0 = process.memoryUsage();
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
  const mem = process.memoryUsage();
  emit('jobs.controller_mb_per_job', (mem.rss - mem0.rss) / 1e6 / n, 'MB', {
    heap_mb_per_job: Number(((mem.heapUsed - mem0.heapUsed) / 1e6 / n).toFixed(3)), note: 'RSS growth of the bench process (controller in-process) with every launch under way',
  });
  // Recovery: the first jobs to run are preempted by the cloud.
  const endR = performance.now() + 300_000;
  let running: { id: number; clusterUid: string | null }[] = [];
  while (recover > 0 && performance.now() < endR) {
    running = (await ctl.list()).jobs.filter((j) => j.status === 'RUNNING' && j.clusterUid);
    if (running.length >= recover) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const victims = running.slice(0, recover);
  for (const j of victims) cloud.cloudActs('preempt', { uid: j.clusterUid! });
  while (victims.some((j) => !started.has(`b-mj${j.id}-2`)) && performance.now() < endR + 120_000) await new Promise((r) => setTimeout(r, 20));
  const rec = victims.map((j) => (started.get(`b-mj${j.id}-2`) ?? Infinity) - (noticed.get(j.id) ?? Infinity));
  if (victims.length) emit('jobs.recovery_s', pct(rec, 0.5) / 1000, 's', { max: Math.max(...rec) / 1000, preempted: victims.length, relaunched: rec.filter(Number.isFinite).length, while_active: n });
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
