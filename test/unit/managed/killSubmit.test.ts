// kill -9 of a controller while it acknowledges submissions back to back (group commit: a
// submit resolves only once the save holding it is durable, and saves run off the thread):
// every acknowledged job is in the store, a new controller runs each recorded job once, and
// nothing leaks.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanupBase } from '../agent/helpers';
import { scaledClock } from '../../../src/core/provision';
import { emptyState } from '../../support/fakeCloud/model';
import { fileStorage } from '../../support/fakeCloud/storage';
import { leaks } from '../../support/fakeCloud/harness';
import { propertySeed } from '../../support/fakeCloud/seed';
import { prng as rng } from '../../support/prng';
import { clustersOf, makeCtx, openController, SCALE, tempRoot } from './helpers';
import { runKillChild } from './runKillChild';


describe('managed jobs controller killed with SIGKILL while acknowledging submissions', function () {
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

  it('loses no acknowledged job, runs each recorded job once, leaks nothing', async () => {
    const { seed, source } = propertySeed();
    console.log(`      seed ${seed} (${source})`);
    const rand = rng(seed);
    const cloudFile = path.join(root, 'cloud.json');
    const runs = path.join(root, 'runs.log');
    const ackFile = path.join(root, 'acked');
    fs.writeFileSync(cloudFile, JSON.stringify(emptyState()));
    const epoch = Date.now();
    // Killed once a random number of the 40 submissions are acknowledged: inside the burst
    // whatever the machine's speed (a delay in ms let a fast child finish the burst first).
    const afterAcks = 1 + Math.floor(rand() * 30);
    const r = await runKillChild({ root, cloudFile, epoch, killAtCall: 0, submit: { count: 40, ackFile, runs } }, { lines: afterAcks }, ackFile);
    assert.equal(r.signal, 'SIGKILL', `seed ${seed}: the child was to be killed mid-submissions (${r.code} ${r.err})`);
    const acked = fs.readFileSync(ackFile, 'utf8').trim().split('\n').map((l) => l.split(' '));
    assert.ok(acked.length < 40, `seed ${seed}: killed after ${afterAcks} acknowledgements, yet every submission was acknowledged`);

    const { ctx, cloud } = await makeCtx(root, { clock: scaledClock(SCALE, epoch), storage: fileStorage(cloudFile) });
    const ctl = await openController(ctx);
    try {
      await ctl.whenIdle();
      const jobs = (await ctl.list()).jobs;
      const byId = new Map(jobs.map((j) => [String(j.id), j]));
      for (const [id, name] of acked) assert.equal(byId.get(id)?.name, name, `seed ${seed}: acknowledged job ${id} (${name}) is in the store`);
      assert.deepEqual(jobs.filter((j) => j.status !== 'SUCCEEDED' || j.clusterName).map((j) => [j.id, j.status, j.lastError]), [], `seed ${seed}`);
      const ran = fs.existsSync(runs) ? fs.readFileSync(runs, 'utf8').trim().split('\n').filter(Boolean).sort() : [];
      assert.deepEqual(ran, jobs.map((j) => j.name).sort(), `seed ${seed}: each recorded job ran exactly once, no other`);
      for (const j of jobs) for (const [name, c] of clustersOf(cloud, j.id)) assert.equal(c.uids.size, 1, `seed ${seed}: ${name} launched ${c.uids.size} times`);
      assert.deepEqual(await leaks({ store: ctx.store, cloud }), [], `seed ${seed}`);
    } finally {
      await ctl.stop();
      await ctx.connections.closeAll();
      ctx.store.close();
    }
  });
});
