// The Clusters view's model, without VS Code: which clusters are asked for their queue, job
// order, per-cluster errors that do not block the others, and folding of concurrent reloads.
import assert from 'node:assert/strict';
import type { ClusterRecord } from '../../../src/core/state';
import type { JobRow } from '../../../src/core/jobs';
import { ClustersModel, type ClustersSource } from '../../../src/ui/tree/clustersModel';

function cluster(name: string, status: ClusterRecord['status'] = 'UP'): ClusterRecord {
  return {
    name, uid: `uid-${name}`, provider: 'local', region: null, zone: null, status, resources: null, num_nodes: 1,
    head_address: '127.0.0.1', ssh_user: null, ssh_port: null, ssh_key_path: null, handle: null, launched_at: 1,
    updated_at: 1, last_error: null, autostop_minutes: null, autostop_down: 0, flags: null,
    created_by_user: null, created_by_machine: null, account: null,
  };
}

function job(id: number, status: JobRow['status'] = 'SUCCEEDED'): JobRow {
  return {
    job_id: id, name: `j${id}`, user: 'u', status, submitted_at: 1, started_at: 1, ended_at: null, exit_code: null,
    reason: null, cpus: null, memory: null, accelerators: null, num_nodes: 1, driver_pid: null,
  };
}

/** A source whose answers the test sets; counts the queue calls per cluster. */
class FakeSource implements ClustersSource {
  clusters: ClusterRecord[] = [];
  queues = new Map<string, JobRow[] | Error | Promise<JobRow[]>>();
  calls: string[] = [];
  lists = 0;
  async listClusters() {
    this.lists++;
    return this.clusters;
  }
  async queue(name: string) {
    this.calls.push(name);
    const q = this.queues.get(name);
    if (q instanceof Error) throw q;
    return (await q) ?? [];
  }
}

describe('ClustersModel', () => {
  it('asks only UP clusters for their queue, and lists jobs newest first', async () => {
    const src = new FakeSource();
    src.clusters = [cluster('a'), cluster('b', 'INIT'), cluster('c', 'STOPPED')];
    src.queues.set('a', [job(1), job(3, 'RUNNING'), job(2)]);
    const m = new ClustersModel(src);
    await m.reload();
    assert.deepEqual(src.calls, ['a']);
    assert.deepEqual(m.all.map((c) => c.name), ['a', 'b', 'c']);
    assert.deepEqual(m.jobsOf('a').map((j) => j.job_id), [3, 2, 1]);
    assert.deepEqual(m.jobsOf('b'), []);
    assert.equal(m.job('a', 2)?.name, 'j2');
    assert.deepEqual(m.counts, { up: 1, running: 1, clusters: 3 });
  });

  it('shows a failing cluster’s error on that cluster only, keeping its last jobs', async () => {
    const src = new FakeSource();
    src.clusters = [cluster('a'), cluster('b')];
    src.queues.set('a', [job(1)]);
    src.queues.set('b', [job(7)]);
    const m = new ClustersModel(src);
    await m.reload();
    src.queues.set('a', new Error('connection refused'));
    src.queues.set('b', [job(7), job(8)]);
    await m.reload();
    assert.equal(m.errorOf('a'), 'connection refused');
    assert.deepEqual(m.jobsOf('a').map((j) => j.job_id), [1]);
    assert.equal(m.errorOf('b'), undefined);
    assert.deepEqual(m.jobsOf('b').map((j) => j.job_id), [8, 7]);
    // Recovers on the next good answer.
    src.queues.set('a', [job(1), job(2)]);
    await m.reload();
    assert.equal(m.errorOf('a'), undefined);
  });

  it('asks clusters in parallel: a slow agent does not delay the others', async () => {
    const src = new FakeSource();
    src.clusters = [cluster('slow'), cluster('fast')];
    let release!: (rows: JobRow[]) => void;
    src.queues.set('slow', new Promise<JobRow[]>((r) => (release = r)));
    src.queues.set('fast', [job(1)]);
    const m = new ClustersModel(src);
    const done = m.reload();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(src.calls.sort(), ['fast', 'slow']); // both asked before either answered
    release([job(5)]);
    await done;
    assert.deepEqual(m.jobsOf('slow').map((j) => j.job_id), [5]);
  });

  it('forgets jobs and errors of clusters that are gone or no longer UP', async () => {
    const src = new FakeSource();
    src.clusters = [cluster('a'), cluster('b')];
    src.queues.set('a', [job(1)]);
    src.queues.set('b', new Error('boom'));
    const m = new ClustersModel(src);
    await m.reload();
    src.clusters = [cluster('a', 'STOPPED')];
    await m.reload();
    assert.deepEqual(m.jobsOf('a'), []);
    assert.equal(m.errorOf('b'), undefined);
    assert.equal(m.cluster('b'), undefined);
  });

  it('folds reloads requested during a reload into one more, and notifies after each', async () => {
    const src = new FakeSource();
    src.clusters = [cluster('a')];
    const m = new ClustersModel(src);
    let changes = 0;
    const off = m.onDidChange(() => changes++);
    await Promise.all([m.reload(), m.reload(), m.reload(), m.reload()]);
    assert.equal(src.lists, 2);
    assert.equal(changes, 2);
    off();
    await m.reload();
    assert.equal(changes, 2);
  });

  it('rejects when the cluster list cannot be read, and reloads again afterwards', async () => {
    const src = new FakeSource();
    const m = new ClustersModel({ ...src, listClusters: async () => Promise.reject(new Error('state locked')), queue: src.queue.bind(src) });
    await assert.rejects(m.reload(), /state locked/);
    await assert.rejects(m.reload(), /state locked/); // not stuck on the failed in-flight reload
  });
});
