// Issue 12.1 on the local cloud (real agent, real processes): a down acts on, and deletes,
// only the cluster uid it started for; a launch never submits into a teardown under way.
// A down is paused by holding its first agent cancel (a gate around its agent client).
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Connections, down, launch, queue } from '../../../src/core/ops';
import { getCluster } from '../../../src/core/state';
import type { AgentClient } from '../../../src/core/jobs';
import { testOps, TestOps, waitFor, writeTask } from './helpers';

const NAME = 'reuse';

/** A Connections whose agent clients hold their first cancel until `release()`. */
function pausedAtCancel(root: string): { connections: Connections; reached: Promise<void>; release(): void } {
  let release!: () => void;
  let reach!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const reached = new Promise<void>((r) => (reach = r));
  const connections = new Connections({ knownHostsFile: path.join(root, 'known_hosts.paused') });
  const client = connections.client.bind(connections);
  connections.client = (c) => {
    const real = client(c);
    return new Proxy(real, {
      get(t, p) {
        if (p === 'cancel') return async (...a: Parameters<AgentClient['cancel']>) => (reach(), await gate, t.cancel(...a));
        const v = Reflect.get(t, p, t);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
  };
  return { connections, reached, release };
}

const settle = <T>(p: Promise<T>) => p.then((value) => ({ value }), (error: Error) => ({ error }));

describe('issue 12.1: down by uid on the local cloud', function () {
  this.timeout(120_000);
  let ops: TestOps;
  let task: string;
  const row = () => ops.store.read((db) => getCluster(db, NAME));
  /** The job a launch reported as submitted is alive on the cluster the row now names. */
  const assertAlive = async (uid: string, jobId: number) => {
    const r = await row();
    assert.equal(r?.uid, uid, 'the launched cluster is still in the state');
    const j = (await queue(ops, NAME)).find((x) => x.job_id === jobId);
    assert.ok(j && !['CANCELLED', 'FAILED', 'FAILED_DRIVER'].includes(j.status), `job ${jobId} is ${j?.status ?? 'gone'}`);
  };

  beforeEach(async () => {
    ops = await testOps();
    task = writeTask(ops.workspaceRoot, 'long.yaml', 'name: long\nresources: {cloud: local}\nrun: sleep 300\n');
  });
  afterEach(async () => {
    await down(ops, NAME, { graceSeconds: 1, purge: true }).catch(() => undefined);
    await ops.dispose();
  });

  it('issue 12.1: a down that started for uid A never deletes relaunched uid B (two downs, staggered launch)', async () => {
    await launch(ops, { taskFile: task, cluster: NAME, detach: true });
    const uidA = (await row())!.uid;
    const paused = pausedAtCancel(ops.workspaceRoot);
    const second = settle(down({ ...ops, connections: paused.connections }, NAME, { graceSeconds: 1 }));
    await paused.reached;
    let firstDone = false;
    const first = settle(down(ops, NAME, { graceSeconds: 1 })).finally(() => (firstDone = true));
    // Either the first down finished (old behaviour) or the name is marked as under teardown.
    await waitFor('the first down to finish or the row to be flagged', async () => firstDone || (await row())?.flags === 'terminating');
    let b = await settle(launch(ops, { taskFile: task, cluster: NAME, detach: true }));
    if ('error' in b) assert.match(b.error.message, /being torn down/);
    paused.release();
    const [d1, d2] = [await first, await second];
    for (const d of [d1, d2]) if ('error' in d) assert.match(d.error.message, /another cluster|touched nothing/);
    if ('error' in b) b = await settle(launch(ops, { taskFile: task, cluster: NAME, detach: true }));
    assert.ok('value' in b, 'the relaunch submits once the old teardown is over');
    const uidB = (await row())?.uid;
    assert.ok(uidB && uidB !== uidA, 'the relaunch is a new uid');
    await assertAlive(uidB, b.value.jobId);
  });

  it('issue 12.1: a launch during a paused down does not submit into the cluster being torn down', async () => {
    await launch(ops, { taskFile: task, cluster: NAME, detach: true });
    const uidA = (await row())!.uid;
    const paused = pausedAtCancel(ops.workspaceRoot);
    const d = settle(down({ ...ops, connections: paused.connections }, NAME, { graceSeconds: 1 }));
    await paused.reached;
    const during = await settle(launch(ops, { taskFile: task, cluster: NAME, detach: true }));
    paused.release();
    const downed = await d;
    assert.ok('value' in downed, `the down finished: ${'error' in downed ? downed.error.message : ''}`);
    // A launch that reported a submitted job must find that job alive; this one must have
    // been refused, with the reason.
    if ('value' in during) await assertAlive(uidA, during.value.jobId);
    assert.ok('error' in during);
    assert.match(during.error.message, /cluster reuse is being torn down/);
    assert.equal(await row(), undefined, 'the down removed uid A');
  });
});
