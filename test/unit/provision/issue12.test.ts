// Issue 12 items 1 and 3 against the fake cloud (scenarios counted by npm run test:leaks).
import { virtualClock } from '../../support/virtualClock';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { thisCreator } from '../../../src/core/state';
import * as os from 'node:os';
import * as path from 'node:path';
import { ProviderError, staticProviders, TAG_UID, type Provider } from '../../../src/core/clouds/provider';
import { claimOwner, makeEnv, provision, reconcileOne, releaseOwner, type Owner } from '../../../src/core/provision';
import { saveRow } from '../../../src/core/provision/rows';
import * as fs from 'node:fs';
import { Connections, down, launch as opsLaunch, localAgentBootstrap, type OpsContext } from '../../../src/core/ops';
import { harness, leaks, noBootstrap, type Harness } from '../../support/fakeCloud/harness';
import { isLiveStatus } from '../../support/fakeCloud/model';
import { endScenario } from './leakStats';
import { assertNoLeaks, launch, row, zone } from './helpers';

/** The provider with a hook after each call of `method` (its `n`-th and later). */
function hooked(p: Provider, method: string, n: number, hook: () => void): Provider {
  let calls = 0;
  return new Proxy(p, {
    get(t, k) {
      const v = Reflect.get(t, k, t);
      if (typeof v !== 'function') return v;
      if (k !== method) return v.bind(t);
      return async (...a: unknown[]) => {
        try {
          return await v.apply(t, a);
        } finally {
          if (++calls >= n) hook();
        }
      };
    },
  });
}

const live = (h: Harness) => h.cloud.truth().filter((i) => isLiveStatus(i.status));

describe('issue 12: fake cloud scenarios', () => {
  let h: Harness;
  afterEach(async function () {
    await endScenario(this.currentTest, h);
    h = undefined as unknown as Harness;
  });

  // Each launch step: the signal is aborted right after that step ran (the editor's Cancel).
  const steps: [string, string, number][] = [
    ['runInstances', 'runInstances', 1],
    ['the first wait poll', 'queryInstances', 1],
    ['clusterInfo', 'clusterInfo', 1],
    ['openPorts', 'openPorts', 1],
  ];
  for (const [label, method, n] of steps) {
    it(`issue 12.3: a launch aborted after ${label} leaves 0 instances and no row`, async () => {
      h = await harness({ clock: virtualClock() });
      const ac = new AbortController();
      // The old editor's reporter threw once cancelled; the loop must not care.
      const env = makeEnv({ store: h.store, clock: h.clock, timing: h.env.timing, log: () => undefined, progress: () => {
        if (ac.signal.aborted) throw new Error('Skydeck: launching: cancelled');
      } }, hooked(h.cloud, method, n, () => ac.abort()));
      const res = await provision(env, { name: 'c1', numNodes: 1, placements: [zone('r1a')], ports: [{ from: 8080, to: 8080 }], bootstrap: noBootstrap, signal: ac.signal });
      assert.ok(ac.signal.aborted, `the ${method} hook ran`);
      assert.equal(res.ok, false);
      assert.deepEqual(res.attempts.map((a) => [a.outcome, a.cleanup]), [['cancelled', 'confirmed']]);
      assert.deepEqual(live(h), [], '0 instances left');
      assert.equal(await row(h, 'c1'), undefined, 'no row left');
      await assertNoLeaks(h);
    });
  }

  it('issue 12.3: a launch cancelled after its cluster is up, before the submit, terminates the cluster it created', async () => {
    h = await harness({ clock: virtualClock(), provider: { cloud: 'aws' } }); // the fake, standing in for aws
    process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"'; // the "instances" are this machine
    const ac = new AbortController();
    const ctx = opsOn(h, h.cloud);
    ctx.bootstrap = localAgentBootstrap(ctx);
    // The editor's Cancel while the workdir syncs: the cluster is up, no job is submitted yet.
    ctx.progress = (s) => {
      if (/^Syncing workdir/.test(s)) ac.abort();
    };
    fs.mkdirSync(path.join(h.root, 'proj'));
    const task = path.join(h.root, 'task.yaml');
    fs.writeFileSync(task, 'name: t\nworkdir: proj\nresources: {cloud: aws}\nrun: sleep 300\n');
    try {
      await assert.rejects(opsLaunch(ctx, { taskFile: task, cluster: 'c1', detach: true, provisionSignal: ac.signal }), /cancelled before its job was submitted.*terminated/);
    } finally {
      delete process.env.SKYDECK_SHUTDOWN_COMMAND;
      await ctx.connections.closeAll();
    }
    assert.ok(ac.signal.aborted);
    assert.deepEqual(live(h), [], '0 instances left');
    assert.equal(await row(h, 'c1'), undefined);
    await assertNoLeaks(h);
  });

  it('issue 12.3: start-up reconcile terminates, with proof, a fresh launch whose process is gone', async () => {
    h = await harness({ clock: virtualClock() });
    // A launch in another process that died after its create call: its row names that process.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const owner = { pid: dead, host: os.hostname(), token: 'gone', since: Date.now() };
    const r = await seedLaunch(h, 'c1', owner);
    assert.equal(live(h).length, 1);
    const out = await reconcileOne(h.env, r);
    assert.equal(out.action, 'ended-launch', out.message);
    assert.deepEqual(live(h), [], 'its instance is terminated');
    assert.equal(await row(h, 'c1'), undefined, 'its row is removed after the proof');
    await assertNoLeaks(h);
  });

  it('issue 12.3: reconcile leaves alone a fresh launch that is still running', async () => {
    h = await harness({ clock: virtualClock() });
    const owner = claimOwner();
    try {
      const r = await seedLaunch(h, 'c1', owner);
      const out = await reconcileOne(h.env, r);
      assert.equal(out.action, 'unchanged');
      assert.match(out.message!, /launch is under way/);
      assert.equal(live(h).length, 1);
      assert.equal((await row(h, 'c1'))?.uid, r.uid);
    } finally {
      releaseOwner(owner);
    }
    // Once that launch gave up without finishing (its owner released), reconcile ends it.
    const out = await reconcileOne(h.env, (await row(h, 'c1'))!);
    assert.equal(out.action, 'ended-launch');
    assert.deepEqual(live(h), []);
    await assertNoLeaks(h);
  });

  it('issue 12.1: a purge that started for uid A never deletes relaunched uid B', async () => {
    h = await harness({ clock: virtualClock(), timing: { confirmTimeoutMs: 60_000 } });
    assert.ok((await launch(h, 'c1')).ok);
    const uidA = (await row(h, 'c1'))!.uid;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let paused = false;
    let broken = false;
    // The purging down's view of the cloud: its terminate call hangs until released, then its
    // queries fail, so it cannot prove anything and purges.
    const slow = new Proxy(h.cloud as Provider, {
      get(t, k) {
        const v = Reflect.get(t, k, t);
        if (k === 'terminateInstances') return async (...a: unknown[]) => { paused = true; await gate; broken = true; return v.apply(t, a); };
        if (k === 'queryInstances') return async (...a: unknown[]) => { if (broken) throw new ProviderError('transient', 'fake: throttled'); return v.apply(t, a); };
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
    const purging = down(opsOn(h, slow), 'c1', { purge: true });
    while (!paused) await h.clock.sleep(100);
    // Meanwhile a normal down proves A gone and removes it; a relaunch takes the name.
    assert.ok((await down(opsOn(h, h.cloud), 'c1')).cleaned);
    assert.ok((await launch(h, 'c1')).ok);
    const uidB = (await row(h, 'c1'))!.uid;
    assert.notEqual(uidB, uidA);
    release();
    const purged = await purging;
    assert.equal(purged.cleaned, false);
    assert.equal((await row(h, 'c1'))?.uid, uidB, "B's row survives A's purge");
    assert.equal(h.cloud.truth().filter((i) => i.tags[TAG_UID] === uidB && i.status === 'running').length, 1);
    await assertNoLeaks(h);
  });
});

/** The row a fresh launch writes at intent, owned by `owner`, and the instance it created. */
async function seedLaunch(h: Harness, name: string, owner: Owner) {
  const now = h.clock.now();
  const creator = thisCreator();
  const base = {
    name, uid: randomUUID(), provider: 'fake', region: 'r1', zone: 'r1a', status: 'INIT' as const, resources: null, num_nodes: 1,
    head_address: null, ssh_user: null, ssh_port: null, ssh_key_path: null, handle: null, launched_at: now, updated_at: now,
    last_error: null, autostop_minutes: null, autostop_down: 0, flags: null,
    created_by_user: creator.user, created_by_machine: creator.machine, account: 'acct-1',
  };
  const r = (await saveRow(h.env, base, { handlePatch: { lastRunAt: now, runInFlight: false, launchOwner: owner } }, undefined, true))!;
  await h.cloud.runInstances({ uid: r.uid, clusterName: name, workspaceId: 'w', numNodes: 1, placement: zone('r1a'), tags: { [TAG_UID]: r.uid } });
  return r;
}

function opsOn(h: Harness, provider: Provider): OpsContext {
  return {
    store: h.store, workspaceRoot: h.root, sshPools: () => ({ pools: [], errors: [] }),
    connections: new Connections({ knownHostsFile: path.join(h.root, 'known_hosts') }),
    progress: () => undefined, log: () => undefined, warn: () => undefined, user: 'tester',
    providers: staticProviders(provider), clock: h.clock, timing: h.env.timing,
  };
}
