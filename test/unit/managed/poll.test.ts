// The controller watches its running jobs with one tagged listing per cloud and account per
// poll, not one query per job per poll; a listing that does not show a cluster healthy sends
// that job to a fresh look at its uid, which still decides a preemption.
import assert from 'node:assert/strict';
import { cleanupBase } from '../agent/helpers';
import type { OpsContext } from '../../../src/core/ops';
import type { ManagedController } from '../../../src/core/managed';
import type { FakeProvider } from '../../support/fakeCloud/fakeProvider';
import type { FakeOp } from '../../support/fakeCloud/model';
import { leaks } from '../../support/fakeCloud/harness';
import { clustersOf, ended, FAST, makeCtx, openController, tempRoot, waitJob } from './helpers';

describe('managed jobs: one cloud listing per poll for every running job', function () {
  this.timeout(180_000);
  let root: string;
  let ctx: OpsContext;
  let cloud: FakeProvider;
  let ctl: ManagedController;
  const calls = new Map<FakeOp, number>();

  before(async () => {
    process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
    root = tempRoot();
    ({ ctx, cloud } = await makeCtx(root, { onCall: (op, at) => void (at === 'before' && calls.set(op, (calls.get(op) ?? 0) + 1)) }));
    ctl = await openController(ctx);
  });
  after(async () => {
    delete process.env.SKYDECK_SHUTDOWN_COMMAND;
    await ctl?.stop();
    await ctx.connections.closeAll();
    ctx.store.close();
    await cleanupBase(root);
  });

  it('6 running jobs: no per-job query while healthy, at most one listing per poll; a preempted one is still found', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(await ctl.submit({ tasks: ['resources:\n  any_of:\n    - infra: aws/r1\n    - infra: aws/r2\nrun: sleep 600\n'], name: `w${i}` }));
    for (const id of ids) await waitJob(ctl, id, (j) => j.status === 'RUNNING', 'running', 120_000);
    // A few more polls so every job has moved on from its first (fresh) look.
    await new Promise((r) => setTimeout(r, 300));
    calls.clear();
    const t0 = cloud.clock.now();
    await new Promise((r) => setTimeout(r, 1_500));
    const polls = (cloud.clock.now() - t0) / FAST.pollMs!;
    const listings = calls.get('listTagged') ?? 0;
    assert.ok(polls >= 5, `the window held several polls (${polls})`);
    assert.equal(calls.get('queryInstances') ?? 0, 0, 'no job asked the cloud about its own uid while the listing showed it healthy');
    assert.ok(listings >= 1 && listings <= polls + 2, `${listings} listings over ${polls.toFixed(1)} polls of 6 jobs (per-job polling would be ~${Math.round(polls * 6)})`);

    const victim = (await ctl.list()).jobs.find((j) => j.id === ids[0])!;
    cloud.cloudActs('preempt', { uid: victim.clusterUid! });
    const rec = await waitJob(ctl, victim.id, (j) => j.recoveryCount === 1 && j.status === 'RUNNING', 'recovered', 120_000);
    assert.equal(rec.launches, 2);
    assert.ok((calls.get('queryInstances') ?? 0) > 0, 'the preemption was confirmed by a look at the uid');
    for (const id of ids) {
      const other = (await ctl.list()).jobs.find((j) => j.id === id)!;
      if (id !== victim.id) assert.deepEqual([other.status, other.recoveryCount], ['RUNNING', 0], `job ${id} was left alone`);
    }

    for (const id of ids) await ctl.cancel(id);
    for (const id of ids) assert.equal((await waitJob(ctl, id, ended, 'cancelled', 120_000)).status, 'CANCELLED');
    for (const id of ids) for (const [name, c] of clustersOf(cloud, id)) assert.equal(c.live, false, `${name} still has a live instance`);
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
  });
});
