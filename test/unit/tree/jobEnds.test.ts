// Issue 19 "one truth on screen": a job end learned anywhere in the window (log panel, watch,
// cancel) shows in the model at once; a stale queue answer does not undo it; a reload that finds
// a job ended tells the others.
import assert from 'node:assert/strict';
import type { ClusterRecord } from '../../../src/core/state';
import type { JobRow } from '../../../src/core/jobs';
import { ClustersModel, type ClustersSource } from '../../../src/ui/tree/clustersModel';
import { JobEvents, type JobEnd } from '../../../src/ui/jobEvents';

function cluster(name: string, uid = `uid-${name}`): ClusterRecord {
  return {
    name, uid, provider: 'local', region: null, zone: null, status: 'UP', resources: null, num_nodes: 1,
    head_address: '127.0.0.1', ssh_user: null, ssh_port: null, ssh_key_path: null, handle: null, launched_at: 1,
    updated_at: 1, last_error: null, autostop_minutes: null, autostop_down: 0, flags: null,
    created_by_user: null, created_by_machine: null, account: null,
  };
}

function job(id: number, status: JobRow['status'], extra: Partial<JobRow> = {}): JobRow {
  return {
    job_id: id, name: `j${id}`, user: 'u', status, submitted_at: 1, started_at: 1, ended_at: null, exit_code: null,
    reason: null, cpus: null, memory: null, accelerators: null, num_nodes: 1, driver_pid: null, ...extra,
  };
}

class Source implements ClustersSource {
  clusters: ClusterRecord[] = [cluster('a')];
  rows = new Map<string, JobRow[]>();
  async listClusters() { return this.clusters; }
  async queue(name: string) { return this.rows.get(name) ?? []; }
}

const end = (jobId: number, status: string, more: Partial<JobEnd> = {}): JobEnd =>
  ({ cluster: 'a', jobId, status, exitCode: status === 'FAILED' ? 1 : 0, reason: null, source: 'log', ...more });

describe('issue 19: job ends reach the model at once', () => {
  it('issue 19: a published end changes the row and the running count with no reload, and fires the change event', async () => {
    const src = new Source();
    src.rows.set('a', [job(1, 'RUNNING'), job(2, 'RUNNING')]);
    const events = new JobEvents();
    const m = new ClustersModel(src, events);
    await m.reload();
    assert.equal(m.counts.running, 2);
    let changes = 0;
    m.onDidChange(() => changes++);
    events.publish(end(1, 'FAILED', { endedAt: 50 }));
    assert.equal(changes, 1);
    assert.deepEqual({ s: m.job('a', 1)?.status, x: m.job('a', 1)?.exit_code, e: m.job('a', 1)?.ended_at }, { s: 'FAILED', x: 1, e: 50 });
    assert.equal(m.counts.running, 1);
    // Told again (the poll, the watch): nothing more changes.
    events.publish(end(1, 'FAILED'));
    events.publish(end(1, 'SUCCEEDED'));
    assert.equal(changes, 1);
    assert.equal(m.job('a', 1)?.status, 'FAILED', 'an ended job never changes its end');
  });

  it('issue 19: a queue answer from before the end does not bring RUNNING back; the agent\'s own end then replaces it', async () => {
    const src = new Source();
    src.rows.set('a', [job(1, 'RUNNING')]);
    const events = new JobEvents();
    const m = new ClustersModel(src, events);
    await m.reload();
    events.publish(end(1, 'SUCCEEDED'));
    await m.reload(); // the agent was asked before the job ended
    assert.equal(m.job('a', 1)?.status, 'SUCCEEDED');
    assert.equal(m.counts.running, 0);
    src.rows.set('a', [job(1, 'SUCCEEDED', { ended_at: 99, exit_code: 0 })]);
    await m.reload();
    assert.equal(m.job('a', 1)?.ended_at, 99, 'the agent\'s row stands once it says the job ended');
  });

  it('issue 19: an end learned before the row was ever listed applies when it appears', async () => {
    const src = new Source();
    const events = new JobEvents();
    const m = new ClustersModel(src, events);
    await m.reload();
    events.publish(end(5, 'CANCELLED', { source: 'cancel' }));
    src.rows.set('a', [job(5, 'RUNNING')]);
    await m.reload();
    assert.equal(m.job('a', 5)?.status, 'CANCELLED');
  });

  it('issue 19: an end of a cluster\'s earlier life (a relaunch under the same name) does not touch the new one\'s job of the same id', async () => {
    const src = new Source();
    src.rows.set('a', [job(1, 'RUNNING')]);
    const events = new JobEvents();
    const m = new ClustersModel(src, events);
    await m.reload();
    events.publish(end(1, 'FAILED'));
    src.clusters = [cluster('a', 'uid-a-again')];
    src.rows.set('a', [job(1, 'RUNNING')]);
    await m.reload();
    assert.equal(m.job('a', 1)?.status, 'RUNNING');
  });

  it('issue 19: ends of unknown clusters, non-terminal statuses and unknown jobs change nothing', async () => {
    const src = new Source();
    src.rows.set('a', [job(1, 'RUNNING')]);
    const events = new JobEvents();
    const m = new ClustersModel(src, events);
    await m.reload();
    let changes = 0;
    m.onDidChange(() => changes++);
    events.publish({ ...end(1, 'SUCCEEDED'), cluster: 'zz' });
    events.publish(end(1, 'RUNNING'));
    events.publish(end(1, 'PENDING; rm -rf /'));
    events.publish(end(9, 'SUCCEEDED'));
    assert.equal(changes, 0);
    assert.equal(m.job('a', 1)?.status, 'RUNNING');
  });

  it('issue 19: a reload that finds a job ended publishes it (source poll), once, and never on the first look', async () => {
    const src = new Source();
    src.rows.set('a', [job(1, 'SUCCEEDED'), job(2, 'RUNNING')]);
    const events = new JobEvents();
    const seen: JobEnd[] = [];
    events.onEnd((e) => seen.push(e));
    const m = new ClustersModel(src, events);
    await m.reload();
    assert.equal(seen.length, 0, 'the first look saw no job end: they had ended before');
    src.rows.set('a', [job(1, 'SUCCEEDED'), job(2, 'FAILED', { exit_code: 2 })]);
    await m.reload();
    await m.reload();
    assert.deepEqual(seen.map((e) => [e.jobId, e.status, e.exitCode, e.source]), [[2, 'FAILED', 2, 'poll']]);
  });

  it('issue 19: a listener that throws does not keep the others from hearing the end', () => {
    const events = new JobEvents();
    const heard: number[] = [];
    events.onEnd(() => { throw new Error('boom'); });
    events.onEnd((e) => heard.push(e.jobId));
    events.publish(end(3, 'SUCCEEDED'));
    assert.deepEqual(heard, [3]);
  });
});
