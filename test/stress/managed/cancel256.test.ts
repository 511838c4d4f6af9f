// 256 managed jobs submitted, then all cancelled at once, on a controller process held to two
// cores (taskset when the machine has more): every job CANCELLED, every cluster torn down with
// proof (no live instance, no row), 0 leaks. Outside the default suite (test/stress): minutes of
// work; run it alone: bash scripts/mocha-only.sh test/stress/managed/cancel256.test.ts
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { cleanupBase } from '../../unit/agent/helpers';
import { LocalManagedClient, ManagedStore, type ManagedJob } from '../../../src/core/managed';
import { tempRoot } from '../../unit/managed/helpers';
import type { ServingReport } from './servingChild';

const N = 256;

/** Two cores: taskset -c 0,1 where there are more (and taskset exists), else as it is. */
function twoCoreCommand(): string[] {
  const node = [process.execPath, '--import', 'tsx', path.join(__dirname, 'servingChild.ts')];
  if (os.cpus().length <= 2) return node;
  const has = spawnSync('taskset', ['--version']).status === 0;
  assert.ok(has || !process.env.CI, 'taskset is needed to hold the controller to two cores');
  return has ? ['taskset', '-c', '0,1', ...node] : node;
}

function lines(child: ChildProcess): AsyncIterator<string> {
  let buf = '';
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  child.stdout!.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      queue.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
    wake?.();
  });
  return {
    async next() {
      while (!queue.length) {
        if (child.exitCode !== null) throw new Error(`the controller exited (${child.exitCode})`);
        await new Promise<void>((r) => ((wake = r), setTimeout(r, 500)));
      }
      return { value: queue.shift()!, done: false };
    },
  };
}

describe(`managed jobs: ${N} submitted, then cancelled at once, on a 2-core controller`, function () {
  this.timeout(1_200_000);
  let root: string;
  let child: ChildProcess | undefined;
  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await cleanupBase(root);
  });

  it('every job CANCELLED, every cluster torn down with proof, 0 leaks', async () => {
    root = tempRoot();
    const [cmd, ...args] = twoCoreCommand();
    child = spawn(cmd, [...args, root], { stdio: ['pipe', 'pipe', 'inherit'] });
    const out = lines(child);
    assert.equal((await out.next()).value, 'serving');
    // The CLI's client: writes to the store; the child holds the lease, so nothing is spawned.
    const client = await LocalManagedClient.open(ManagedStore.fileIn(root), () => ({ where: 'test', started: false, detail: '' }));
    try {
      const ids: number[] = [];
      for (let i = 0; i < N; i++) ids.push((await client.submit({ tasks: ['resources:\n  infra: aws/r1\nrun: sleep 600\n'], name: 'c' })).id);
      // Cancelled while launches are in every phase (some creating, some setting up, some running).
      await until(client, (js) => js.filter((j) => j.clusterName).length >= N / 2, 'half launching');
      const c = await client.cancel('all');
      assert.equal(c.requested.length + c.skipped.length, N);
      const jobs = await until(client, (js) => js.every((j) => ['CANCELLED', 'SUCCEEDED', 'FAILED'].includes(j.status) && !j.clusterName), 'every job ended, its cluster gone');
      assert.deepEqual(jobs.filter((j) => j.status !== 'CANCELLED').map((j) => `${j.id} ${j.status} ${j.lastError}`), []);
      child.stdin!.write('report\n');
      const r = JSON.parse((await out.next()).value) as ServingReport;
      assert.ok(r.runInstances > 0, 'clusters were being created when the cancel came');
      assert.deepEqual(Object.entries(r.clusters).filter(([, live]) => live).map(([n]) => n), [], 'no cluster has a live instance');
      assert.deepEqual(r.rows, [], 'no cluster row is left');
      assert.deepEqual(r.leaks, []);
    } finally {
      await client.close();
    }
  });
});

async function until(client: LocalManagedClient, pred: (js: ManagedJob[]) => boolean, what: string): Promise<ManagedJob[]> {
  const end = Date.now() + 900_000;
  for (;;) {
    const { jobs, refused } = await client.list();
    if (jobs.length === N && pred(jobs)) return jobs;
    if (Date.now() > end) {
      const by = jobs.reduce<Record<string, number>>((a, j) => ((a[j.status] = (a[j.status] ?? 0) + 1), a), {});
      const seen = new Set([...jobs.map((j) => j.id), ...refused.map((r) => r.id)]);
      const missing = Array.from({ length: N }, (_, i) => i + 1).filter((id) => !seen.has(id));
      throw new Error(`never saw ${what}: ${JSON.stringify(by)}; refused ${JSON.stringify(refused)}; missing ids ${JSON.stringify(missing)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
