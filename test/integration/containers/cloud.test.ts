// Issue 18 on a cloud: `image_id: docker:…` on aws boots the cloud's default machine image (the
// provider never sees the docker reference), readies the container (a runtime installed first
// where the node has none: installRuntime.test.ts), and runs the task inside it. The fake cloud
// stands in for aws; its "instances" are this machine, so the container runs here (podman).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { staticProviders, type Provider } from '../../../src/core/clouds/provider';
import { Connections, down, launch, localAgentBootstrap, status, type OpsContext } from '../../../src/core/ops';
import { readHandle } from '../../../src/core/ops/clusterHandle';
import { harness, type Harness } from '../../support/fakeCloud/harness';
import { virtualClock } from '../../support/virtualClock';
import { containersOf, requireTestImage } from '../../support/containers/testImage';

describe('a container cluster on a cloud (fake aws, podman on this machine)', function () {
  this.timeout(300_000);
  let h: Harness | undefined;
  let ctx: OpsContext | undefined;
  let image = '';
  before(function () {
    this.timeout(600_000);
    image = requireTestImage(this);
  });
  afterEach(async () => {
    delete process.env.SKYDECK_SHUTDOWN_COMMAND;
    if (ctx) {
      for (const c of await status(ctx)) await down(ctx, c.cluster.name, { graceSeconds: 1, purge: true }).catch(() => undefined);
      await ctx.connections.closeAll();
    }
    h?.dispose();
    if (h) fs.rmSync(h.root, { recursive: true, force: true });
    ctx = undefined;
    h = undefined;
  });

  it('launch runs the task in the container; the provider got no machine image; down removes the container', async () => {
    h = await harness({ clock: virtualClock(), provider: { cloud: 'aws' } });
    process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"'; // the "instances" are this machine
    const progress: string[] = [];
    const runs: string[] = [];
    ctx = {
      store: h.store, workspaceRoot: h.root, sshPools: () => ({ pools: [], errors: [] }),
      connections: new Connections({ knownHostsFile: path.join(h.root, 'known_hosts') }),
      progress: (s) => progress.push(s), log: () => undefined, warn: () => undefined, user: 'tester',
      providers: staticProviders(recording(h.cloud, runs)), clock: h.clock, timing: h.env.timing,
    };
    ctx.bootstrap = localAgentBootstrap(ctx);
    const task = path.join(h.root, 'task.yaml');
    fs.writeFileSync(task, `name: t\nresources: {cloud: aws, image_id: "docker:${image}"}\nrun: |\n  [ -e /run/.containerenv ] && echo "in container" || echo "on host"\n`);
    let out = '';
    const r = await launch(ctx, { taskFile: task, cluster: 'cc', onOutput: (d) => (out += d) });
    assert.equal(r.final?.status, 'SUCCEEDED', `${out}\n${progress.join('\n')}`);
    assert.equal(out, 'in container\n');
    const row = (await status(ctx))[0].cluster;
    const c = readHandle(row).container!;
    assert.equal(c.runtime, 'podman');
    assert.deepEqual(containersOf(row.uid), [c.name]);
    assert.ok(progress.some((l) => l.includes(`container ${c.name}`)), progress.join('\n'));
    // The machine image the provider was asked for: the cloud's default, not "docker:…".
    assert.ok(runs.length > 0);
    for (const s of runs) assert.doesNotMatch(s, /docker:|skydeck-test|imageId/);
    await down(ctx, 'cc', { graceSeconds: 1 });
    assert.deepEqual(containersOf(row.uid), [], 'the container is gone');
  });
});

/** The provider, with every runInstances request recorded (as JSON) in `runs`. */
function recording(p: Provider, runs: string[]): Provider {
  return new Proxy(p, {
    get(t, k) {
      const v = Reflect.get(t, k, t);
      if (typeof v !== 'function') return v;
      if (k !== 'runInstances') return v.bind(t);
      return (req: unknown) => {
        runs.push(JSON.stringify(req));
        return v.call(t, req);
      };
    },
  });
}
