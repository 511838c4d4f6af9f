// The cost columns and verbs end to end on the fake cloud standing in for aws (its instances
// are this machine; the clock runs 100x so an hour of billing passes in a test).
import { cleanupBase } from '../agent/helpers';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { StateStore } from '../../../src/core/state';
import { staticProviders } from '../../../src/core/clouds/provider';
import { Connections, localAgentBootstrap, type OpsContext } from '../../../src/core/ops';
import { scaledClock } from '../../../src/core/provision';
import { readIndex } from '../../../src/core/cost';
import { FakeProvider } from '../../support/fakeCloud/fakeProvider';

describe('cli: status $/H and SPEND, show-gpus, cost-report (fake cloud as aws)', function () {
  this.timeout(120_000);
  let savedHome: string | undefined;
  let ctx: OpsContext;
  let root: string;
  let home: string;
  const run = async (...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli(argv, { out: (t) => (out += t), outBytes: (d) => (out += d.toString()), err: (t) => (err += t) }, async () => ctx);
    return { code, out, err };
  };

  before(async () => {
    process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-cli-cost-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-cli-cost-home-'));
    savedHome = process.env.SKYDECK_HOME;
    process.env.SKYDECK_HOME = home;
    const clock = scaledClock(100);
    ctx = {
      store: await StateStore.openWorkspace(root), workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
      connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts') }),
      progress: () => undefined, log: () => undefined, warn: () => undefined, user: 'tester',
      providers: staticProviders(new FakeProvider({ cloud: 'aws', clock })), clock, timing: { confirmTimeoutMs: 60_000 },
    };
    ctx.bootstrap = localAgentBootstrap(ctx);
  });
  after(async () => {
    delete process.env.SKYDECK_SHUTDOWN_COMMAND;
    if (savedHome === undefined) delete process.env.SKYDECK_HOME;
    else process.env.SKYDECK_HOME = savedHome;
    await ctx.connections.closeAll();
    ctx.store.close();
    await cleanupBase(root);
  });

  it('status shows $/h and spend of a p3.2xlarge; stopped it bills disks; down records duration and cost', async () => {
    const task = path.join(root, 'task.yaml');
    fs.writeFileSync(task, 'resources:\n  infra: aws/us-east-1\n  instance_type: p3.2xlarge\n  disk_size: 200\nrun: echo hi\n');
    const l = await run('launch', task, '-c', 'gpu1');
    assert.equal(l.code, 0, l.err);
    const s = await run('status');
    assert.equal(s.code, 0, s.err);
    assert.match(s.out, /NAME .* \$\/H +SPEND +JOBS/);
    assert.match(s.out, /gpu1 .* UP .* \$3\.06\/h +\$\d+\.\d\d /);
    // The index now lists it for other windows, with the same rate.
    const idx = readIndex(undefined, home);
    assert.equal(idx.workspaces.length, 1);
    assert.equal(idx.workspaces[0].folder, root);
    assert.equal(idx.workspaces[0].clusters[0].usdPerHour, 3.06);
    assert.equal((await run('stop', 'gpu1')).code, 0);
    const stopped = await run('status');
    // 200 GB x $0.08/GB-month / 730 h.
    assert.match(stopped.out, /gpu1 .* STOPPED .* \$0\.02\/h +\$\d+\.\d\d /);
    const down = await run('down', 'gpu1', '-y');
    assert.equal(down.code, 0, down.err);
    const rep = await run('cost-report');
    assert.equal(rep.code, 0, rep.err);
    assert.match(rep.out, /gpu1 +\S+ +aws +p3\.2xlarge +1 +\S+.* \$3\.06\/h +\$\d+\.\d\d +ENDED/);
    assert.match(rep.out, /Total: \$\d+\.\d\d\n/);
    await run('status');
    assert.deepEqual(readIndex(undefined, home).workspaces, [], 'no live cluster left: the entry is gone');
  });

  it('show-gpus lists accelerators, and one accelerator\'s offers with prices, "unknown" spot and the source line', async () => {
    const all = await run('show-gpus');
    assert.equal(all.code, 0, all.err);
    assert.match(all.out, /^GPU +QTY +CLOUDS/);
    assert.match(all.out, /\nA100 +1, 2, 4, 8 +aws, azure, gcp\n/);
    const v = await run('show-gpus', 'V100:1', '--cloud', 'aws');
    assert.equal(v.code, 0, v.err);
    assert.match(v.out, /V100 +1 +aws +p3\.2xlarge +16GB +8 +61GB +\$3\.06\/h +unknown +us-east-1/);
    assert.match(v.out, /Prices: shipped table \(\d{4}-\d\d-\d\d\); 1 unknown/);
    assert.equal((await run('show-gpus', '--cloud', 'oracle')).code, 2);
    assert.equal((await run('show-gpus', '$(id)')).code, 2);
    assert.equal((await run('show-gpus', 'NOPE')).code, 1);
  });
});
