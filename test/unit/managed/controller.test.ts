// The managed-jobs controller end to end on the fake cloud: real provision loop, real agent,
// real jobs; the cloud preempts on request. Each job's cluster must be gone with proof.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanupBase } from '../agent/helpers';
import type { OpsContext } from '../../../src/core/ops';
import type { ManagedController } from '../../../src/core/managed';
import { FakeProvider } from '../../support/fakeCloud/fakeProvider';
import { leaks } from '../../support/fakeCloud/harness';
import { clustersOf, ended, makeCtx, openController, rowNames, tempRoot, waitJob } from './helpers';

describe('managed jobs controller (fake cloud as aws, real agent)', function () {
  this.timeout(120_000);
  let root: string;
  let ctx: OpsContext;
  let cloud: FakeProvider;
  let ctl: ManagedController;
  const marker = (n: string) => path.join(root, `marker-${n}`);

  before(async () => {
    process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
    root = tempRoot();
    ({ ctx, cloud } = await makeCtx(root));
    ctl = await openController(ctx);
  });
  afterEach(() => cloud.storage.save({ ...cloud.storage.load(), faults: [] }));
  after(async () => {
    delete process.env.SKYDECK_SHUTDOWN_COMMAND;
    await ctl?.stop();
    await ctx.connections.closeAll();
    ctx.store.close();
    await cleanupBase(root);
  });

  /** Every cluster the job launched is gone: no row, every instance terminating/terminated. */
  async function assertTornDown(id: number): Promise<void> {
    const names = [...clustersOf(cloud, id).keys()];
    assert.ok(names.length > 0, 'the job launched a cluster');
    for (const [name, c] of clustersOf(cloud, id)) assert.equal(c.live, false, `${name} still has a live instance`);
    const rows = await rowNames(ctx);
    for (const n of names) assert.ok(!rows.includes(n), `${n} still has a row`);
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
  }

  it('a job runs to SUCCEEDED and its cluster is torn down with proof', async () => {
    const id = await ctl.submit({ tasks: ['name: hello\nresources:\n  infra: aws/r1\nrun: echo hello\n'] });
    const j = await waitJob(ctl, id, ended, 'finished');
    assert.equal(j.status, 'SUCCEEDED');
    assert.deepEqual([j.recoveryCount, j.launches, j.name], [0, 1, 'hello']);
    assert.deepEqual((await ctl.events(id)).map((e) => e.to), ['PENDING', 'STARTING', 'RUNNING', 'SUCCEEDED']);
    await assertTornDown(id);
  });

  // The first launch lands in r2 (r1 has no capacity once), so the strategies differ:
  // FAILOVER retries r2, EAGER_NEXT_REGION goes to r1.
  for (const [strategy, expected] of [['FAILOVER', 'r2'], ['EAGER_NEXT_REGION', 'r1']] as const) {
    it(`preempted while RUNNING: RECOVERING, relaunched (${strategy}: ${expected} first), SUCCEEDED with recovery_count 1`, async () => {
      cloud.inject(...['r1a', 'r1b', 'r1c'].map((zone) => ({ op: 'runInstances' as const, at: 'before' as const, effect: 'capacity' as const, zone, times: 1 })));
      const m = marker(strategy);
      const task = `resources:\n  any_of:\n    - infra: aws/r1\n    - infra: aws/r2\n  job_recovery: ${strategy}\n` +
        `run: if [ -e ${m} ]; then echo second run; else touch ${m}; sleep 60; fi\n`;
      const id = await ctl.submit({ tasks: [task], name: `pre-${strategy.toLowerCase()}` });
      const first = await waitJob(ctl, id, (j) => j.status === 'RUNNING' && fs.existsSync(m), 'running');
      assert.equal(first.region, 'r2');
      cloud.cloudActs('preempt', { uid: first.clusterUid! });
      const j = await waitJob(ctl, id, ended, 'finished');
      assert.equal(j.status, 'SUCCEEDED', j.lastError ?? '');
      assert.deepEqual([j.recoveryCount, j.restartsOnErrors, j.launches, j.region], [1, 0, 2, expected]);
      const evs = await ctl.events(id);
      assert.deepEqual(evs.map((e) => e.to), ['PENDING', 'STARTING', 'RUNNING', 'RECOVERING', 'RUNNING', 'SUCCEEDED']);
      assert.match(evs[3].reason, /^preempted: (0 of 1 node\(s\) running|no live instance)/);
      const second = clustersOf(cloud, id).get(`${j.name}-mj${id}-2`)!;
      assert.deepEqual([...second.regions], [expected]);
      await assertTornDown(id);
    });
  }

  it('the user\'s failure without max_restarts_on_errors: FAILED, no recovery, one launch', async () => {
    const id = await ctl.submit({ tasks: ['resources:\n  infra: aws/r1\nrun: exit 3\n'] });
    const j = await waitJob(ctl, id, ended, 'finished');
    assert.equal(j.status, 'FAILED');
    assert.deepEqual([j.recoveryCount, j.restartsOnErrors, j.launches], [0, 0, 1]);
    assert.match(j.lastError!, /ended FAILED \(exit code 3\) on a healthy cluster/);
    await assertTornDown(id);
  });

  it('with max_restarts_on_errors 1: one restart on a fresh cluster, which succeeds', async () => {
    const m = marker('restart');
    const id = await ctl.submit({ tasks: [`resources:\n  infra: aws/r1\n  job_recovery: {max_restarts_on_errors: 1}\nrun: if [ -e ${m} ]; then exit 0; fi; touch ${m}; exit 1\n`] });
    const j = await waitJob(ctl, id, ended, 'finished');
    assert.equal(j.status, 'SUCCEEDED', j.lastError ?? '');
    assert.deepEqual([j.recoveryCount, j.restartsOnErrors, j.launches], [0, 1, 2]);
    assert.match((await ctl.events(id))[3].reason, /ended FAILED \(exit code 1\).*restart 1 of 1/);
    await assertTornDown(id);
  });

  it('with max_restarts_on_errors 1 and a task that always fails: restarted once, then FAILED', async () => {
    const id = await ctl.submit({ tasks: ['resources:\n  infra: aws/r1\n  job_recovery: {max_restarts_on_errors: 1}\nrun: exit 2\n'] });
    const j = await waitJob(ctl, id, ended, 'finished');
    assert.equal(j.status, 'FAILED');
    assert.deepEqual([j.restartsOnErrors, j.launches], [1, 2]);
    await assertTornDown(id);
  });

  it('cancel during STARTING: CANCELLED, its cluster gone with proof, 0 leaks', async () => {
    cloud.inject({ op: 'runInstances', at: 'after', effect: 'slow', delayMs: 60_000, times: 1 });
    const id = await ctl.submit({ tasks: ['resources:\n  infra: aws/r1\nrun: echo never\n'] });
    const starting = await waitJob(ctl, id, (j) => j.status === 'STARTING' && !!j.clusterName, 'starting');
    await waitFor(async () => (await rowNames(ctx)).includes(starting.clusterName!), 'the intent row');
    assert.equal(await ctl.cancel(id), true);
    const j = await waitJob(ctl, id, ended, 'finished');
    assert.equal(j.status, 'CANCELLED');
    assert.deepEqual((await ctl.events(id)).map((e) => e.to).slice(-2), ['CANCELLING', 'CANCELLED']);
    assert.ok(!(await rowNames(ctx)).includes(starting.clusterName!));
    for (const [name, c] of clustersOf(cloud, id)) assert.equal(c.live, false, `${name} still has a live instance`);
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
  });

  it('cancel during RUNNING: CANCELLED, its cluster gone with proof, 0 leaks', async () => {
    const id = await ctl.submit({ tasks: ['resources:\n  infra: aws/r1\nrun: sleep 60\n'] });
    await waitJob(ctl, id, (j) => j.status === 'RUNNING', 'running');
    assert.equal(await ctl.cancel(id), true);
    const j = await waitJob(ctl, id, ended, 'finished');
    assert.equal(j.status, 'CANCELLED');
    assert.equal(await ctl.cancel(id), false, 'an ended job cannot be cancelled again');
    await assertTornDown(id);
  });

  it('cancel during RECOVERING (the relaunch under way): CANCELLED, both clusters gone with proof, 0 leaks', async () => {
    const id = await ctl.submit({ tasks: ['resources:\n  infra: aws/r1\nrun: sleep 60\n'] });
    const first = await waitJob(ctl, id, (j) => j.status === 'RUNNING', 'running');
    cloud.inject({ op: 'runInstances', at: 'after', effect: 'slow', delayMs: 60_000, times: 1 });
    cloud.cloudActs('preempt', { uid: first.clusterUid! });
    const rec = await waitJob(ctl, id, (j) => j.status === 'RECOVERING' && j.launches === 2, 'relaunching');
    await waitFor(async () => (await rowNames(ctx)).includes(rec.clusterName!), 'the relaunch\'s intent row');
    assert.equal(await ctl.cancel(id), true);
    const j = await waitJob(ctl, id, ended, 'finished');
    assert.equal(j.status, 'CANCELLED');
    assert.deepEqual((await ctl.events(id)).map((e) => e.to), ['PENDING', 'STARTING', 'RUNNING', 'RECOVERING', 'CANCELLING', 'CANCELLED']);
    for (const [name, c] of clustersOf(cloud, id)) assert.equal(c.live, false, `${name} still has a live instance`);
    assert.deepEqual((await rowNames(ctx)).filter((n) => n.includes(`-mj${id}-`)), []);
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
  });

  it('a pipeline of 3 tasks runs in order, each on a fresh cluster', async () => {
    const out = marker('pipeline');
    const tasks = [1, 2, 3].map((n) => `name: step${n}\nresources:\n  infra: aws/r1\nrun: echo t${n} >> ${out}\n`);
    const id = await ctl.submit({ tasks, name: 'pipe' });
    const j = await waitJob(ctl, id, ended, 'finished');
    assert.equal(j.status, 'SUCCEEDED', j.lastError ?? '');
    assert.equal(fs.readFileSync(out, 'utf8'), 't1\nt2\nt3\n');
    assert.deepEqual([j.taskIndex, j.launches], [2, 3]);
    assert.deepEqual((await ctl.events(id)).map((e) => e.to), ['PENDING', 'STARTING', 'RUNNING', 'STARTING', 'RUNNING', 'STARTING', 'RUNNING', 'SUCCEEDED']);
    assert.equal(clustersOf(cloud, id).size, 3);
    await assertTornDown(id);
  });
});

async function waitFor(pred: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error(`never saw ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
