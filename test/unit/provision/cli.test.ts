// The CLI verbs on a cloud cluster, end to end: the fake cloud stands in for aws, and its
// instances are this machine (the agent runs locally), so a real job runs.
import { cleanupBase } from '../agent/helpers';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { autostopText } from '../../../src/cli/commands/status';
import { StateStore, getCluster } from '../../../src/core/state';
import { staticProviders } from '../../../src/core/clouds/provider';
import { Connections, down, launch, localAgentBootstrap, localBaseDir, type OpsContext } from '../../../src/core/ops';
import { cli } from '../agent/helpers';
import { makeEnv, provision, scaledClock } from '../../../src/core/provision';
import { FakeProvider } from '../../support/fakeCloud/fakeProvider';
import { leaks } from '../../support/fakeCloud/harness';

describe('cli on a cloud cluster (fake provider as aws)', function () {
  this.timeout(60_000);
  let ctx: OpsContext;
  let cloud: FakeProvider;
  let root: string;
  const run = async (...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli(argv, { out: (t) => (out += t), outBytes: (d) => (out += d.toString()), err: (t) => (err += t) }, async () => ctx);
    return { code, out, err };
  };

  before(async () => {
    // The "cloud" instances are this machine: an autostop that fired must not shut it down.
    process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-cli-cloud-'));
    const clock = scaledClock(100);
    cloud = new FakeProvider({ cloud: 'aws', clock });
    ctx = {
      store: await StateStore.openWorkspace(root), workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
      connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts') }),
      progress: () => undefined, log: () => undefined, warn: () => undefined, user: 'tester',
      providers: staticProviders(cloud), clock, timing: { confirmTimeoutMs: 60_000 },
    };
    ctx.bootstrap = localAgentBootstrap(ctx);
  });
  after(async () => {
    delete process.env.SKYDECK_SHUTDOWN_COMMAND;
    await ctx.connections.closeAll();
    ctx.store.close();
    // A fake cloud's terminate does not end this machine: the agents it started (autostop keeps
    // their daemons counting idle time) end here, with the directory.
    await cleanupBase(root);
  });

  it('launch, status --refresh, stop, start, down: each confirmed by the cloud', async () => {
    const task = path.join(root, 'task.yaml');
    fs.writeFileSync(task, 'resources:\n  infra: aws/r1\nrun: echo hello from the cloud\n');
    const l = await run('launch', task, '-c', 'c1');
    assert.equal(l.code, 0, l.err);
    assert.match(l.out, /hello from the cloud/);
    const s = await run('status', '--refresh');
    assert.match(s.out, /c1 .* aws .* r1 .* UP/);
    const stop = await run('stop', 'c1');
    assert.equal(stop.code, 0, stop.err);
    assert.match(stop.out, /Cluster c1 is stopped \(stop confirmed/);
    assert.match((await run('status')).out, /STOPPED/);
    const start = await run('start', 'c1');
    assert.equal(start.code, 0, start.err);
    assert.match(start.out, /c1 is UP/);
    const down = await run('down', 'c1', '-y');
    assert.equal(down.code, 0, down.err);
    assert.match(down.out, /termination confirmed/);
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
  });

  it('an unconfirmed down keeps the cluster flagged; --purge says what it skips; leaks finds and terminates it', async () => {
    const task = path.join(root, 'task2.yaml');
    fs.writeFileSync(task, 'resources:\n  cloud: aws\nrun: "true"\n');
    assert.equal((await run('launch', task, '-c', 'c2', '-d')).code, 0);
    cloud.inject({ op: 'terminateInstances', at: 'before', effect: 'noop', times: -1 });
    const down = await run('down', 'c2', '-y');
    assert.equal(down.code, 1);
    assert.match(down.err, /could not confirm .* run "skydeck down c2" again to retry, or add --purge/);
    assert.match((await run('status')).out, /c2 .*termination unconfirmed: run skydeck down again/);
    const purge = await run('down', 'c2', '-y', '--purge');
    assert.equal(purge.code, 0, purge.err);
    assert.match(purge.out, /--purge: forgot c2 without proof that its instances are gone: i-\d+ \(running\) may still be running/);
    const list = await run('leaks');
    assert.match(list.out, /Leaked instances of this workspace[\s\S]*aws +i-\d+ +running +c2/);
    const id = /(i-\d+) +running +c2/.exec(list.out)![1];
    cloud.storage.save({ ...cloud.storage.load(), faults: [] });
    const t = await run('leaks', '--terminate', id, '-y');
    assert.equal(t.code, 0, t.err);
    assert.match((await run('leaks')).out, /this workspace \([^)]+\): none/);
  });

  it('status --refresh removes a cluster proven gone (after the grace window) and says so', async () => {
    const res = await provision(makeEnv(ctx, cloud), {
      name: 'c3', numNodes: 1, placements: [{ cloud: 'aws', region: 'r1', useSpot: false }], bootstrap: async () => ({ workdir: '/tmp' }),
    });
    assert.ok(res.ok, res.error);
    await cloud.terminateInstances({ uid: res.row!.uid });
    await ctx.clock!.sleep(61_000);
    const s = await run('status', '--refresh');
    assert.equal(s.code, 0, s.err);
    assert.match(s.out, /c3 .* GONE \(removed\)/);
    assert.match(s.err, /c3: removed: no live instance/);
    assert.doesNotMatch((await run('status')).out, /c3/);
  });

  it('stop on an unknown cluster is a usage error naming the clusters', async () => {
    const r = await run('stop', 'nope');
    assert.equal(r.code, 2);
    assert.match(r.err, /no cluster named "nope"/);
  });

  it('a task that names no region launches in the region the editor picked', async () => {
    const task = path.join(root, 'noregion.yaml');
    fs.writeFileSync(task, 'run: echo picked\n');
    const r = await launch(ctx, { taskFile: task, cluster: 'picked', cloud: 'aws', region: 'r2', detach: true });
    const row = (await ctx.store.read((db) => db.exec("SELECT region FROM clusters WHERE name = 'picked'")))[0].values[0][0];
    assert.equal(row, 'r2');
    assert.equal(r.cluster, 'picked');
    await down(ctx, 'picked');
  });

  it('the task\'s resources.autostop is recorded when the command line says nothing, and --idle-minutes wins', async () => {
    const task = path.join(root, 'autostop.yaml');
    fs.writeFileSync(task, 'resources:\n  autostop: {idle_minutes: 12, down: true}\nrun: echo idle\n');
    const stop = async (name: string) => (await ctx.store.read((db) => db.exec(`SELECT autostop_minutes, autostop_down FROM clusters WHERE name = '${name}'`)))[0].values[0];
    // Followed to the end (not detached): the status line below and the agent shutdown before
    // the down both need the job finished; detached, a loaded machine raced them.
    assert.equal((await launch(ctx, { taskFile: task, cluster: 'as1', cloud: 'aws' })).final?.status, 'SUCCEEDED');
    assert.deepEqual(await stop('as1'), [12, 1]);
    // The head's agent got it: on AWS an OS shutdown of every node (the shutdown behaviour terminates).
    const agent = await cli(localBaseDir(root, 'as1'), ['status']);
    assert.deepEqual([agent.autostop.idle_minutes, agent.autostop.down, agent.autostop.action], [12, true, 'shutdown']);
    assert.match((await run('status', '--refresh')).out, /as1 .* UP +12m \(down\), in 1[12]m +\$\S+ +\$\S+ +0 running/);
    assert.equal((await launch(ctx, { taskFile: task, cluster: 'as2', cloud: 'aws', idleMinutes: 3 })).final?.status, 'SUCCEEDED');
    assert.deepEqual(await stop('as2'), [3, 1]);
    // A real cloud's terminate ends the head's agent with the machine; here the agent runs on
    // this one, and with autostop set its daemon would stay to count idle time: stop it first.
    for (const name of ['as1', 'as2']) {
      const row = await ctx.store.read((db) => getCluster(db, name));
      assert.ok(row, `${name} has a row`);
      await ctx.connections.client(row).shutdown();
      await down(ctx, name);
    }
  });

  it('the AUTOSTOP column: off, the setting, time left, and a self-stop that failed', () => {
    assert.equal(autostopText(null, false), '-');
    assert.equal(autostopText(10, false), '10m');
    assert.equal(autostopText(10, true, { firesIn: 125, problems: [] }), '10m (down), in 3m');
    assert.equal(autostopText(10, false, { firesIn: null, problems: [] }), '10m');
    assert.equal(autostopText(0, true, { firesIn: null, problems: [], heldFor: 1700 }), '0m (down), launch hold 29m');
    assert.equal(autostopText(10, false, { firesIn: 0, problems: ['deallocate: HTTP 403'] }), '10m, FAILED');
  });
});
