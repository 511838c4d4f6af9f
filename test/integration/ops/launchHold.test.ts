// `launch -i 0 --down` on a new cloud cluster: the bootstrap sets the agent's autostop (a client
// that dies mid-launch must not leave it billing), but the job comes only after the workdir
// upload and the rest. The launch holds autostop off until its job is in (agent autostop.py
// hold_seconds); a launch killed meanwhile leaves a hold that runs out, not one that lasts.
// The fake cloud stands in for aws and its instances are this machine, so the head's agent,
// its daemon and the self-stop (a marker command in place of the shutdown) are real.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { down, launch, localBaseDir, start, stop } from '../../../src/core/ops';
import { LAUNCH_HOLD_SECONDS } from '../../../src/core/ops/agentAutostop';
import { getCluster } from '../../../src/core/state';
import { bundleWorker } from '../../support/bundleWorker';
import { cleanupBase, cli, sleep, waitUntil } from '../../unit/agent/helpers';
import { holdOps } from './launchHoldFixture';

const ROOT = path.resolve(__dirname, '../../..');
// The pause between the bootstrap and the submit: many daemon ticks.
const GAP_MS = 3000;

describe('launch -i 0 --down: autostop waits for the launch\'s job', function () {
  this.timeout(120_000);
  let root: string;
  let marker: string;
  const saved = { tick: process.env.SKYDECK_TICK_INTERVAL, shutdown: process.env.SKYDECK_SHUTDOWN_COMMAND };
  const fired = (): number[] => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').trim().split('\n').filter(Boolean).map(Number) : []);

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-hold-'));
    marker = path.join(root, 'shutdown-ran');
    // A fast daemon tick (the agent reads it at start); the self-stop's shutdown writes a marker.
    process.env.SKYDECK_TICK_INTERVAL = '0.1';
    process.env.SKYDECK_SHUTDOWN_COMMAND = `date +%s.%N >> '${marker}'`;
  });
  after(async () => {
    for (const [k, v] of [['SKYDECK_TICK_INTERVAL', saved.tick], ['SKYDECK_SHUTDOWN_COMMAND', saved.shutdown]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    // The agents' daemons here outlive a fake terminate (autostop keeps them counting): ended with the directory.
    await cleanupBase(root);
  });

  it('does not stop the cluster before the job is in, however slow the launch; stops it once the job ended', async () => {
    let during: { held_until: number | null; fires_in: number | null } | undefined;
    const ctx = await holdOps(root, path.join(root, 'cloud.json'), async (row) => {
      await sleep(GAP_MS);
      during = (await cli(localBaseDir(root, row.name), ['status'])).autostop;
    });
    try {
      const task = path.join(root, 'task.yaml');
      fs.writeFileSync(task, 'resources:\n  infra: aws/r1\nrun: sleep 1; echo hold-ok\n');
      const r = await launch(ctx, { taskFile: task, cluster: 'held', cloud: 'aws', idleMinutes: 0, down: true });
      assert.equal(r.final?.status, 'SUCCEEDED');
      const row = (await ctx.store.read((db) => getCluster(db, 'held')))!;
      const job = (await ctx.connections.client(row).queueSnapshot()).find((j) => j.job_id === r.jobId)!;
      await waitUntil(() => fired().length > 0, 20_000, 'the self-stop ran once the job ended');
      assert.ok(fired()[0] >= job.ended_at!, `the self-stop ran ${job.ended_at! - fired()[0]} s before the job ended (submitted ${job.submitted_at! - fired()[0]} s after it)`);
      assert.ok(during, 'the agent was asked during the pause');
      assert.equal(during.fires_in, null, 'idle clock stopped while the launch was under way');
      assert.ok(during.held_until! > Date.now() / 1000 + LAUNCH_HOLD_SECONDS - 300, `held until ${during.held_until}`);
      // The hold was lifted: nothing is held any more.
      assert.equal((await cli(localBaseDir(root, 'held'), ['status'])).autostop.held_until, null);
      assert.deepEqual(ctx.warnings, []);
      await ctx.connections.client(row).shutdown();
      await down(ctx, 'held');
    } finally {
      await ctx.dispose();
    }
  });

  it('a launch that fails after the bootstrap lifts its hold: the idle cluster then stops', async () => {
    const wd = path.join(root, 'wd');
    fs.mkdirSync(wd);
    fs.writeFileSync(path.join(wd, 'f'), 'x');
    fs.rmSync(marker, { force: true });
    // The workdir goes away while the launch is in its pause: its upload fails.
    const ctx = await holdOps(root, path.join(root, 'cloud-fail.json'), async () => fs.rmSync(wd, { recursive: true, force: true }));
    try {
      const task = path.join(root, 'fails.yaml');
      fs.writeFileSync(task, `resources:\n  infra: aws/r1\nworkdir: ${wd}\nrun: "true"\n`);
      await assert.rejects(launch(ctx, { taskFile: task, cluster: 'failed', cloud: 'aws', idleMinutes: 0, down: true, detach: true }));
      assert.equal((await cli(localBaseDir(root, 'failed'), ['status'])).autostop.held_until, null);
      await waitUntil(() => fired().length > 0, 20_000, 'the self-stop ran once the failed launch lifted its hold');
      assert.deepEqual(ctx.warnings, []);
      const row = (await ctx.store.read((db) => getCluster(db, 'failed')))!;
      await ctx.connections.client(row).shutdown();
      await down(ctx, 'failed');
    } finally {
      await ctx.dispose();
    }
  });

  it('start (no job follows) sets autostop without a hold', async () => {
    const ctx = await holdOps(root, path.join(root, 'cloud-start.json'), async () => undefined);
    try {
      const task = path.join(root, 'restart.yaml');
      fs.writeFileSync(task, 'resources:\n  infra: aws/r1\nrun: "true"\n');
      // Followed to its end: the agent is shut down for the stop (its daemon outlives a fake stop).
      const r = await launch(ctx, { taskFile: task, cluster: 'restarted', cloud: 'aws', idleMinutes: 30 });
      const client = async () => ctx.connections.client((await ctx.store.read((db) => getCluster(db, 'restarted')))!);
      await (await client()).shutdown();
      await stop(ctx, 'restarted');
      await start(ctx, 'restarted');
      const st = (await cli(localBaseDir(root, 'restarted'), ['status'])).autostop;
      assert.equal(st.idle_minutes, 30);
      assert.equal(st.held_until, null, 'start held autostop off for a job that never comes');
      assert.ok(st.fires_in > 29 * 60, `fires in ${st.fires_in} s`);
      assert.equal(r.final?.status, 'SUCCEEDED');
      await (await client()).shutdown();
      await down(ctx, 'restarted');
    } finally {
      await ctx.dispose();
    }
  });

  it('a launch killed (SIGKILL) after the bootstrap leaves a hold that runs out, not one that lasts forever', async () => {
    const child = await bundleWorker(path.join(__dirname, 'launchHoldChild.ts'));
    fs.cpSync(path.join(ROOT, 'agent'), path.join(path.dirname(child), 'agent'), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(path.dirname(child), 'sql-wasm.wasm'));
    fs.rmSync(marker, { force: true });
    const task = path.join(root, 'killed.yaml');
    fs.writeFileSync(task, 'resources:\n  infra: aws/r1\nrun: echo never\n');
    const cloudFile = path.join(root, 'cloud-killed.json');
    const p = spawn(process.execPath, [child, JSON.stringify({ root, cloudFile, task, name: 'killed' })], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout!.on('data', (d) => (out += d));
    p.stderr!.on('data', (d) => (out += d));
    const exited = new Promise((r) => p.on('close', r));
    await waitUntil(() => out.includes('bootstrapped') || p.exitCode !== null, 60_000, 'the child bootstrapped the cluster');
    assert.match(out, /bootstrapped/);
    p.kill('SIGKILL');
    await exited;
    const base = localBaseDir(root, 'killed');
    const killedAt = Date.now() / 1000;
    await sleep(1500); // many daemon ticks with -i 0
    const st = (await cli(base, ['status'])).autostop;
    assert.equal(st.idle_minutes, 0);
    assert.equal(st.fires_in, null, 'held: the launch may still be uploading');
    assert.deepEqual(fired(), [], 'stopped before any job came');
    // The hold ends: the cluster then stops (hold + idle minutes after the bootstrap).
    assert.ok(typeof st.held_until === 'number' && st.held_until <= killedAt + LAUNCH_HOLD_SECONDS, `held until ${st.held_until}`);
    assert.ok(st.held_until > killedAt + LAUNCH_HOLD_SECONDS - 300, `held until ${st.held_until}`);
    // Clean up with a fresh client: the agent's daemon, then the cluster.
    await cli(base, ['shutdown']);
    const ctx = await holdOps(root, cloudFile, async () => undefined);
    try {
      await down(ctx, 'killed').catch(() => undefined);
    } finally {
      await ctx.dispose();
    }
  });
});
