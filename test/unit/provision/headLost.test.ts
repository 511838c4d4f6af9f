// An UP cluster whose instances vanish (a Kubernetes pod deleted from outside, a VM terminated
// from the console) is never left UP by a refresh: within the launch grace it becomes INIT
// and the jobs cached for its head become FAILED_DRIVER; past the grace the row is removed.
import assert from 'node:assert/strict';
import { virtualClock } from '../../support/virtualClock';
import { refreshOne } from '../../../src/core/provision';
import { listJobs, putJobs, type JobRecord } from '../../../src/core/state';
import { harness, type Harness } from '../../support/fakeCloud/harness';
import { endScenario } from './leakStats';
import { assertNoLeaks, launch, row } from './helpers';

describe('provision: refresh of an UP cluster whose head is gone', () => {
  let h: Harness;
  afterEach(async function () {
    await endScenario(this.currentTest, h);
    h = undefined as unknown as Harness;
  });

  const job = (uid: string, id: number, status: string): JobRecord => ({
    cluster_uid: uid, cluster: 'c1', job_id: id, name: `j${id}`, user_name: 'u', status, submitted_at: 1, started_at: 1,
    ended_at: status === 'SUCCEEDED' ? 2 : null, exit_code: status === 'SUCCEEDED' ? 0 : null, reason: null, resources: null,
  });

  it('every instance gone within the grace: INIT with the reason, open jobs FAILED_DRIVER, ended jobs kept', async () => {
    h = await harness({ clock: virtualClock() });
    assert.ok((await launch(h, 'c1')).ok);
    const r = (await row(h, 'c1'))!;
    await h.store.write((db) => putJobs(db, [job(r.uid, 1, 'SUCCEEDED'), job(r.uid, 2, 'RUNNING'), job(r.uid, 3, 'PENDING')]));
    await h.cloud.terminateInstances({ uid: r.uid, region: r.region ?? undefined });
    await h.cloud.waitInstances({ uid: r.uid, region: r.region ?? undefined }, 'terminated', 30_000);
    const out = await refreshOne(h.env, r);
    assert.equal(out.action, 'updated', JSON.stringify(out));
    const after = (await row(h, 'c1'))!;
    assert.equal(after.status, 'INIT');
    assert.match(after.last_error!, /^head instance \S+ is gone/);
    const jobs = await h.store.read((db) => listJobs(db, r.uid));
    assert.deepEqual(jobs.map((j) => [j.job_id, j.status]), [[3, 'FAILED_DRIVER'], [2, 'FAILED_DRIVER'], [1, 'SUCCEEDED']]);
    assert.match(jobs[0].reason!, /head instance \S+ is gone/);
    assert.equal(jobs[2].reason, null, 'an ended job keeps its own end');

    await h.clock.sleep(61_000); // past the grace: the usual rule removes the row
    assert.equal((await refreshOne(h.env, after)).action, 'removed');
    assert.equal(await row(h, 'c1'), undefined);
    await assertNoLeaks(h);
  });

  it('the head terminated while a worker runs: INIT and the head\'s jobs FAILED_DRIVER', async () => {
    h = await harness({ clock: virtualClock() });
    assert.ok((await launch(h, 'c1', { numNodes: 2 })).ok);
    const r = (await row(h, 'c1'))!;
    await h.store.write((db) => putJobs(db, [job(r.uid, 1, 'RUNNING')]));
    const headId = JSON.parse(r.handle!).headId as string;
    await h.cloud.terminateInstances({ uid: r.uid }, [headId]);
    await h.clock.sleep(2_000);
    assert.equal((await refreshOne(h.env, r)).action, 'updated');
    assert.equal((await row(h, 'c1'))!.status, 'INIT');
    assert.equal((await h.store.read((db) => listJobs(db, r.uid)))[0].status, 'FAILED_DRIVER');
  });

  it('a flagged UP row (a stop under way) is left to its own recovery, not marked', async () => {
    h = await harness({ clock: virtualClock() });
    assert.ok((await launch(h, 'c1')).ok);
    const r = (await row(h, 'c1'))!;
    await h.store.write((db) => putJobs(db, [job(r.uid, 1, 'RUNNING')]));
    await h.cloud.terminateInstances({ uid: r.uid, region: r.region ?? undefined });
    await h.cloud.waitInstances({ uid: r.uid, region: r.region ?? undefined }, 'terminated', 30_000);
    const flagged = { ...r, flags: 'stopping' };
    const out = await refreshOne(h.env, flagged);
    assert.equal(out.action, 'unchanged');
    assert.equal((await h.store.read((db) => listJobs(db, r.uid)))[0].status, 'RUNNING');
  });
});
