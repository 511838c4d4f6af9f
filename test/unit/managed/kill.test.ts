// kill -9 of the controller process at cloud calls, then a new controller on the same store:
// every job finishes, no task runs twice, every cluster is torn down with proof (0 leaks).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanupBase } from '../agent/helpers';
import { scaledClock } from '../../../src/core/provision';
import { ManagedController } from '../../../src/core/managed';
import { emptyState } from '../../support/fakeCloud/model';
import { fileStorage } from '../../support/fakeCloud/storage';
import { leaks } from '../../support/fakeCloud/harness';
import { clustersOf, makeCtx, openController, SCALE, tempRoot } from './helpers';
import type { KillChildConfig } from './killChild';

function runChild(cfg: KillChildConfig): Promise<{ code: number | null; signal: string | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'killChild.ts'), JSON.stringify(cfg)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code, signal) => resolve({ code, signal, err }));
  });
}

describe('managed jobs controller killed with SIGKILL, then restarted', function () {
  this.timeout(240_000);
  let root: string;
  before(() => {
    process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
    root = tempRoot();
  });
  after(async () => {
    delete process.env.SKYDECK_SHUTDOWN_COMMAND;
    await cleanupBase(root);
  });

  it('every job resumes where it was and finishes; each task ran once; 0 leaks', async () => {
    const cloudFile = path.join(root, 'cloud.json');
    const runs = path.join(root, 'runs.log');
    const epoch = Date.now();
    const storage = fileStorage(cloudFile, emptyState());
    // Jobs are submitted (PENDING in the store) before any controller runs them.
    const { ctx: submitCtx } = await makeCtx(root, { clock: scaledClock(SCALE, epoch), storage });
    const sub = await ManagedController.open(submitCtx);
    const m = path.join(root, 'failed-once');
    const task = (tag: string, extra = '') => `resources:\n  infra: aws/r1\n${extra}run: echo ${tag} >> ${runs}\n`;
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

    // Controller processes, each killed at a later cloud call than the one before (the count
    // is the cloud's, over every process).
    const kills: string[] = [];
    for (const killAtCall of [3, 9, 18, 30, 45]) {
      const r = await runChild({ root, cloudFile, epoch, killAtCall });
      assert.ok(r.signal === 'SIGKILL' || r.code === 0, `the child failed: ${r.code} ${r.err}`);
      kills.push(r.signal ?? `exit ${r.code}`);
    }
    assert.deepEqual(kills.slice(0, 3), ['SIGKILL', 'SIGKILL', 'SIGKILL'], 'the controllers were killed mid-way');

    const { ctx, cloud } = await makeCtx(root, { clock: scaledClock(SCALE, epoch), storage: fileStorage(cloudFile) });
    const ctl = await openController(ctx);
    try {
      await ctl.whenIdle();
      const jobs = (await ctl.list()).jobs;
      assert.deepEqual(jobs.map((j) => [j.id, j.status, j.clusterName]), ids.map((id) => [id, 'SUCCEEDED', null]), JSON.stringify(jobs.map((j) => j.lastError)));
      assert.deepEqual(fs.readFileSync(runs, 'utf8').trim().split('\n').sort(), ['a', 'b1', 'b2', 'c1', 'c2']);
      for (const id of ids) {
        for (const [name, c] of clustersOf(cloud, id)) {
          assert.equal(c.live, false, `${name} still has a live instance`);
          // Adopted after a kill, never launched a second time under another uid.
          assert.equal(c.uids.size, 1, `${name} was launched ${c.uids.size} times`);
        }
      }
      assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
    } finally {
      await ctl.stop();
      await ctx.connections.closeAll();
      ctx.store.close();
    }
  });
});
