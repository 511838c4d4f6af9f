import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentEnv, waitUntil } from '../../unit/agent/helpers';
import { startGangCluster, type GangCluster } from './agentFixture';

// Autostop by OS shutdown on a 3-node cluster: the head's self-stop shuts every worker down over
// the cluster's ssh (as the worker's own user), then itself. The shutdown is replaced by a
// harmless command through the agent's test hook; HOME of the head is its scratch dir.
describe('agent autostop on a 3-node cluster (head + 2 sshd workers): every node is shut down', function () {
  this.timeout(60_000);
  let g: GangCluster | undefined;
  const marker = 'echo "$(id -un)" >> "$HOME/shutdown-ran"';
  afterEach(async () => {
    await g?.stop();
    g = undefined;
  });

  const start = async () => {
    const base = { SKYDECK_TICK_INTERVAL: '0.1', SKYDECK_SHUTDOWN_COMMAND: marker };
    g = await startGangCluster({ env: agentEnv(base) });
    // HOME points at the head's scratch dir, known only once the fixture made it: restart serve.
    g.client.kill();
    g.client = g.head.serve(agentEnv({ ...base, HOME: g.head.base }));
    return g;
  };
  const lastResult = async (c: GangCluster['client']) => (await c.call('status')).autostop.last_result;

  it('shuts the workers down first, then the head, and says so', async () => {
    const c = await start();
    await c.client.call('configure', { autostop: { idle_minutes: 0.01, action: 'shutdown', wait_for: 'jobs' } });
    await waitUntil(async () => (await lastResult(c.client)) !== null, 20_000, 'the self-stop ran');
    const r = await lastResult(c.client);
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.done, [...c.workers.map((w, i) => `worker node ${i + 1} (${w.user}@${w.address})`), 'head']);
    for (const w of c.workers) assert.equal(fs.readFileSync(path.join(w.home, 'shutdown-ran'), 'utf8'), `${w.user}\n`);
    assert.equal(fs.readFileSync(path.join(c.head.base, 'shutdown-ran'), 'utf8'), 'root\n');
  });

  it('a worker that cannot be reached is named as a problem; the others and the head still shut down', async () => {
    const c = await start();
    const status = await c.client.call('status');
    const workers = status.cluster.workers.map((w: Record<string, unknown>, i: number) => (i === 0 ? { ...w, port: 1 } : w));
    await c.client.call('configure', { workers });
    await c.client.call('configure', { autostop: { idle_minutes: 0.01, action: 'shutdown', wait_for: 'jobs' } });
    await waitUntil(async () => (await lastResult(c.client)) !== null, 40_000, 'the self-stop ran');
    const r = await lastResult(c.client);
    assert.equal(r.ok, false);
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0], /^worker node 1 .*: exit 255: .*(refused|Connection)/);
    assert.equal(fs.readFileSync(path.join(c.workers[1].home, 'shutdown-ran'), 'utf8'), `${c.workers[1].user}\n`);
    assert.ok(fs.existsSync(path.join(c.head.base, 'shutdown-ran')));
  });
});
