// kill -9 of the controller process, then a new controller on the same store: every job
// finishes, no task runs twice (so never twice at once), every cluster is torn down with proof
// (0 leaks). Kills land at cloud calls (a fixed list, and a seeded random schedule) and at
// random instants of the parent's choosing.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanupBase } from '../agent/helpers';
import { scaledClock } from '../../../src/core/provision';
import { ManagedController } from '../../../src/core/managed';
import { emptyState } from '../../support/fakeCloud/model';
import { fileStorage } from '../../support/fakeCloud/storage';
import { leaks } from '../../support/fakeCloud/harness';
import { propertySeed } from '../../support/fakeCloud/seed';
import { clustersOf, makeCtx, openController, SCALE, tempRoot } from './helpers';
import { runKillChild } from './runKillChild';
import { prng as rng } from '../../support/prng';



describe('managed jobs controller killed with SIGKILL, then restarted', function () {
  this.timeout(600_000);
  let root: string;
  beforeEach(() => {
    process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
    root = tempRoot();
  });
  afterEach(async () => {
    delete process.env.SKYDECK_SHUTDOWN_COMMAND;
    await cleanupBase(root);
  });

  /** Three jobs (one task, a pipeline of two, one failing once then restarted) submitted before any controller runs. */
  async function submitJobs(cloudFile: string, runs: string, epoch: number): Promise<number[]> {
    const { ctx: submitCtx } = await makeCtx(root, { clock: scaledClock(SCALE, epoch), storage: fileStorage(cloudFile, emptyState()) });
    const sub = await ManagedController.open(submitCtx);
    const m = path.join(root, 'failed-once');
    const task = (tag: string) => `resources:\n  infra: aws/r1\nrun: echo ${tag} >> ${runs}\n`;
    const ids = [
      await sub.submit({ tasks: [task('a')], name: 'a' }),
      await sub.submit({ tasks: [task('b1'), task('b2')], name: 'b' }),
      await sub.submit({
        tasks: [`resources:\n  infra: aws/r1\n  job_recovery: {max_restarts_on_errors: 1}\nrun: if [ -e ${m} ]; then echo c2 >> ${runs}; exit 0; fi; touch ${m}; echo c1 >> ${runs}; exit 1\n`],
        name: 'c',
      }),
    ];
    await sub.stop();
    submitCtx.store.close();
    return ids;
  }

  /** A last controller, never killed, finishes; then every promise of the test is checked. */
  async function finishAndCheck(cloudFile: string, runs: string, epoch: number, ids: number[], schedule: string): Promise<void> {
    const { ctx, cloud } = await makeCtx(root, { clock: scaledClock(SCALE, epoch), storage: fileStorage(cloudFile) });
    const ctl = await openController(ctx);
    try {
      await ctl.whenIdle();
      const jobs = (await ctl.list()).jobs;
      assert.deepEqual(jobs.map((j) => [j.id, j.status, j.clusterName]), ids.map((id) => [id, 'SUCCEEDED', null]), `${schedule}: ${JSON.stringify(jobs.map((j) => j.lastError))}`);
      assert.deepEqual(fs.readFileSync(runs, 'utf8').trim().split('\n').sort(), ['a', 'b1', 'b2', 'c1', 'c2'], `${schedule}: each task ran exactly once`);
      for (const id of ids) {
        for (const [name, c] of clustersOf(cloud, id)) {
          assert.equal(c.live, false, `${schedule}: ${name} still has a live instance`);
          // Adopted after a kill, never launched a second time under another uid.
          assert.equal(c.uids.size, 1, `${schedule}: ${name} was launched ${c.uids.size} times`);
        }
      }
      assert.deepEqual(await leaks({ store: ctx.store, cloud }), [], schedule);
    } finally {
      await ctl.stop();
      await ctx.connections.closeAll();
      ctx.store.close();
    }
  }

  it('killed at fixed cloud calls: every job resumes where it was and finishes; each task ran once; 0 leaks', async () => {
    const cloudFile = path.join(root, 'cloud.json');
    const runs = path.join(root, 'runs.log');
    const epoch = Date.now();
    const ids = await submitJobs(cloudFile, runs, epoch);
    // Each killed at a later cloud call than the one before (the count is the cloud's, over every process).
    const kills: string[] = [];
    for (const killAtCall of [3, 9, 18, 30, 45]) {
      const r = await runKillChild({ root, cloudFile, epoch, killAtCall });
      assert.ok(r.signal === 'SIGKILL' || r.code === 0, `the child failed: ${r.code} ${r.err}`);
      kills.push(r.signal ?? `exit ${r.code}`);
    }
    assert.deepEqual(kills.slice(0, 3), ['SIGKILL', 'SIGKILL', 'SIGKILL'], 'the controllers were killed mid-way');
    await finishAndCheck(cloudFile, runs, epoch, ids, 'fixed calls');
  });

  it('killed at a seeded random schedule (cloud calls and instants): the same promises hold', async () => {
    const { seed, source } = propertySeed();
    console.log(`      seed ${seed} (${source})`);
    const rand = rng(seed);
    const cloudFile = path.join(root, 'cloud.json');
    const runs = path.join(root, 'runs.log');
    const epoch = Date.now();
    const ids = await submitJobs(cloudFile, runs, epoch);
    const schedule: string[] = [];
    let call = 0;
    for (let round = 0; round < 6; round++) {
      // Half the rounds die at a cloud call a few after the last; half at an instant, which
      // also lands between calls (mid-save, mid-agent-submit, mid-teardown).
      const atCall = rand() < 0.5;
      if (atCall) call += 1 + Math.floor(rand() * 12);
      const afterMs = atCall ? undefined : 300 + Math.floor(rand() * 2_500);
      const r = await runKillChild({ root, cloudFile, epoch, killAtCall: atCall ? call : 0 }, afterMs);
      schedule.push(atCall ? `call ${call}` : `${afterMs} ms`);
      assert.ok(r.signal === 'SIGKILL' || r.code === 0, `seed ${seed}, round ${round}: the child failed: ${r.code} ${r.err}`);
    }
    await finishAndCheck(cloudFile, runs, epoch, ids, `seed ${seed}, kills at ${schedule.join(', ')}`);
  });
});
