// The Managed jobs section's model and words (no vscode), and the catalog price behind "cost so far".
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { clusterRate, type ManagedJob } from '../../../src/core/managed';
import type { ClusterRecord } from '../../../src/core/state';
import { costText, ManagedJobsModel, managedJobDescription } from '../../../src/ui/tree/managedJobsModel';
import { tempRoot } from '../managed/helpers';
import { ClustersModel } from '../../../src/ui/tree/clustersModel';

const job = (p: Partial<ManagedJob>): ManagedJob => ({
  id: 3, name: 'train', submittedAt: 0, status: 'RUNNING', tasks: ['run: x'], envs: {}, taskIndex: 0, recoveryCount: 2, restartsOnErrors: 0,
  launches: 3, clusterName: 'train-mj3-3', clusterUid: 'u', agentJobId: 1, region: 'us-east-1', lastError: null, startedAt: 1_000, endedAt: null,
  updatedAt: 0, cancelRequested: false, ...p,
});

function row(p: Partial<ClusterRecord> & { placement?: object }): ClusterRecord {
  const { placement, ...rest } = p;
  return {
    name: 'train-mj3-3', uid: 'u', provider: 'aws', region: 'us-east-1', zone: null, status: 'UP', resources: null, num_nodes: 1,
    head_address: null, ssh_user: null, ssh_port: null, ssh_key_path: null, handle: placement ? JSON.stringify({ placement }) : null,
    launched_at: 0, updated_at: 0, last_error: null, autostop_minutes: null, autostop_down: 0, flags: null, created_by_user: null,
    created_by_machine: null, account: null, ...rest,
  };
}

describe('tree: Managed jobs section', () => {
  it('describes a job: status in words, recoveries, cluster, duration, cost (unknown is never $0)', () => {
    const now = 1_000 + 3_723_000;
    const priced = { kind: 'priced' as const, usdPerHour: 2, what: '1 × x' };
    assert.equal(managedJobDescription({ job: job({}), rate: priced }, now), 'running · 2 recoveries · on train-mj3-3 · 1h 2m · ≈ $2.07 so far');
    assert.equal(managedJobDescription({ job: job({ status: 'FAILED_NO_RESOURCE', recoveryCount: 1, clusterName: null, endedAt: 61_000 }), rate: { kind: 'unknown', why: 'x' } }, now),
      'failed: no resources · 1 recovery · no cluster · 1m 0s · cost unknown');
    assert.equal(managedJobDescription({ job: job({ status: 'PENDING', startedAt: null, cancelRequested: true }), rate: { kind: 'unknown', why: 'x' } }, now),
      'pending (cancel requested) · 2 recoveries · on train-mj3-3 · not started · cost unknown');
    assert.equal(costText({ kind: 'free', why: 'local' }, 5), 'no cloud charge');
    assert.equal(costText(priced, 1000), '≈ $0.0006 so far');
  });

  it('is hidden until a job exists; a failed listing keeps the jobs and shows why; damaged rows are listed', () => {
    const m = new ManagedJobsModel();
    assert.equal(m.visible, false);
    m.set({ jobs: [{ job: job({ id: 1 }), rate: { kind: 'unknown', why: '' } }, { job: job({ id: 2, status: 'RECOVERING' }), rate: { kind: 'unknown', why: '' } }], refused: [{ id: '7', problem: 'bad status' }] });
    assert.deepEqual([m.visible, m.summary, m.all.map((v) => v.job.id)], [true, '2 · 1 running · 1 recovering', [2, 1]]);
    m.failed('EACCES');
    assert.equal(m.summary, '2 · 1 running · 1 recovering · listing failed');
    assert.deepEqual(m.entries().map((e) => (e.kind === 'managed-job' ? e.view.job.id : e.message)),
      [2, 1, 'managed job 7 is not shown: its row is damaged (bad status)', 'listing managed jobs failed: EACCES']);
  });

  it('a cluster\'s rate (the PriceBook the tree uses): the cached catalog first, the shipped table next; spot without a listed price, no row: unknown; no type: estimated from the shape', () => {
    const dir = tempRoot();
    assert.deepEqual(clusterRate(row({ placement: { cloud: 'aws', instanceType: 'm6i.large', useSpot: false }, num_nodes: 2 }), dir),
      { kind: 'priced', usdPerHour: 0.192, what: '2 × m6i.large on-demand, $0.10/h each' });
    fs.writeFileSync(path.join(dir, 'aws-us-east-1.json'), JSON.stringify({ cloud: 'aws', region: 'us-east-1', fetchedAt: Date.now(), types: [{ cloud: 'aws', name: 'm5.large', vcpus: 2, memoryGb: 8, price: 0.1, spotPrice: 0.03 }] }));
    assert.deepEqual(clusterRate(row({ placement: { cloud: 'aws', instanceType: 'm5.large', useSpot: true } }), dir), { kind: 'priced', usdPerHour: 0.03, what: '1 × m5.large spot, $0.03/h each' });
    assert.equal(clusterRate(row({ region: 'eu-west-1', placement: { cloud: 'aws', instanceType: 'm5.large', useSpot: true } }), dir).kind, 'unknown');
    const guessed = clusterRate(row({ placement: { cloud: 'aws', useSpot: false } }), dir);
    assert.ok(guessed.kind === 'priced' && guessed.what.includes('(estimated from the shape)'), JSON.stringify(guessed));
    assert.equal(clusterRate(undefined, dir).kind, 'unknown');
    assert.equal(clusterRate(row({ provider: 'local' }), dir).kind, 'free');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reloads with the clusters; a failing listing shows on the section and never fails the reload', async () => {
    let fail = false;
    const model = new ClustersModel({
      listClusters: async () => [], queue: async () => [],
      listManagedJobs: async () => {
        if (fail) throw new Error('store unreadable');
        return { jobs: [{ job: job({}), rate: { kind: 'unknown', why: '' } }], refused: [] };
      },
    });
    await model.reload();
    assert.equal(model.managed.job(3)?.job.name, 'train');
    fail = true;
    await model.reload();
    assert.equal(model.managed.job(3)?.job.name, 'train', 'the jobs last seen stay');
    assert.match(model.managed.summary, /listing failed$/);
  });
});
