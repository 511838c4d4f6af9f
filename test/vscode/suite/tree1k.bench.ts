// Host-side cost of refreshing the Clusters view for a cluster with 1,000 jobs, measured inside
// the real extension host (real vscode.TreeItem, ThemeIcon, MarkdownString) next to the
// activation figure; bench/ui.ts runs this file (SKYDECK_TEST_BENCH=1) and reads the "tree 1k" line.
//
// One refresh = ClustersModel.reload() (list clusters, JSON.parse of the agent's 1,000-row
// queue answer, sort newest first) + the provider building the cluster node and its 1,000 job
// nodes, as VS Code asks for them. Not included: the agent's own time and the round-trip to the
// head node (the source answers from memory), and the workbench drawing the rows.
import * as assert from 'node:assert/strict';
import type { ClusterRecord } from '../../../src/core/state';
import type { JobRow } from '../../../src/core/jobs';
import { ClustersModel } from '../../../src/ui/tree/clustersModel';
import { ClustersTreeProvider, type ClustersTreeNode } from '../../../src/ui/tree/clustersTreeProvider';
import { log } from './log';

const JOBS = 1000;
const RUNS = 15;
const STATUSES: JobRow['status'][] = ['SUCCEEDED', 'FAILED', 'RUNNING', 'PENDING', 'CANCELLED', 'SETTING_UP'];

const CLUSTER: ClusterRecord = {
  name: 'big', uid: 'uid-big', provider: 'local', region: 'local', zone: null, status: 'UP',
  resources: JSON.stringify({ cpus: 8, memory: 32, accelerators: { L4: 1 } }), num_nodes: 1,
  head_address: '127.0.0.1', ssh_user: null, ssh_port: null, ssh_key_path: null, handle: null,
  launched_at: 1_700_000_000, updated_at: 1_700_000_000, last_error: null, autostop_minutes: null, autostop_down: 0, flags: null,
  created_by_user: null, created_by_machine: null, account: null,
};

function rows(): JobRow[] {
  return Array.from({ length: JOBS }, (_, i) => ({
    job_id: i + 1, name: `train-${i}`, user: 'alice', status: STATUSES[i % STATUSES.length],
    submitted_at: 1_700_000_000 + i, started_at: 1_700_000_010 + i, ended_at: i % 3 ? 1_700_000_500 + i : null,
    exit_code: i % 3 ? 0 : null, reason: null, cpus: 1, memory: null, accelerators: null, num_nodes: 1, driver_pid: 1000 + i,
  }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('activation bench: Clusters tree with 1,000 jobs (extension host)', () => {
  it('refreshes a 1,000-job cluster, and says how long it took', async () => {
    // What the agent client hands over, as text: the model's source decodes it each time.
    const answer = JSON.stringify(rows().reverse());
    const model = new ClustersModel({ listClusters: async () => [CLUSTER], queue: async () => JSON.parse(answer) as JobRow[] });
    const tree = new ClustersTreeProvider(model);
    const refresh = async (): Promise<number> => {
      await tree.refresh();
      let items = 0;
      const walk = async (parent?: ClustersTreeNode) => {
        for (const node of await tree.getChildren(parent)) {
          tree.getTreeItem(node);
          items++;
          await walk(node);
        }
      };
      await walk();
      return items;
    };
    const times: number[] = [];
    const cpus: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const c = process.cpuUsage();
      const t = performance.now();
      const items = await refresh();
      times.push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpus.push((used.user + used.system) / 1000);
      assert.equal(items, JOBS + 1);
    }
    tree.dispose();
    const jobs = model.jobsOf('big');
    assert.equal(jobs[0].job_id, JOBS, 'newest first');
    log(`      tree 1k: median ${median(times.slice(1)).toFixed(1)} ms, first ${times[0].toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms, cpu median ${median(cpus.slice(1)).toFixed(1)} ms (${RUNS} refreshes)`);
  });
});
