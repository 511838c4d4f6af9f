// launch --dryrun and --retry-until-up against the fake cloud as aws (instances = this machine).
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { inDir, layout, openBench, type Bench } from './helpers';
import { leaks } from '../../support/fakeCloud/harness';

describe('cli: launch --dryrun and --retry-until-up (fake cloud as aws)', function () {
  this.timeout(120_000);
  let b: Bench;
  let repo: string;

  before(async () => {
    process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
    b = await openBench('skydeck-cli-plan-');
    repo = layout(path.join(b.root, 'repo'), {
      'data/x.txt': 'x\n',
      'examples/foo/task.yaml': 'workdir: .\nfile_mounts:\n  /data: ./data\nresources:\n  infra: aws/r1\n  accelerators: A10G:1\nsetup: echo s\nrun: echo hi\n',
    });
  });
  after(async () => {
    delete process.env.SKYDECK_SHUTDOWN_COMMAND;
    await b.close();
  });

  it('--dryrun shows candidates with $/h from the catalog, resolved sync paths, and creates nothing', async () => {
    const r = await inDir(repo, () => b.run('launch', 'examples/foo/task.yaml', '-c', 'd1', '--dryrun', '--num-nodes', '2'));
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Cluster d1 would be created on aws with 2 nodes/);
    assert.match(r.out, /Candidates, in the order tried:\n  1\. aws\/r1\n/);
    // The optimizer table (core/cost launchPlan): the chosen row marked, per node and for 2 nodes.
    assert.match(r.out, /Considered resources \(2 nodes\):\nCLOUD +REGION +INSTANCE +vCPUs +MEM\(GB\) +GPUS +ON-DEMAND\/NODE +SPOT\/NODE +× 2 NODES +CHOSEN\n/);
    assert.match(r.out, /\naws +r1 +g5\.xlarge +4 +16 +A10G:1 +\$1\.01\/h +unknown +\$2\.01\/h +✔\n/);
    assert.match(r.out, /\naws +r1 +g5\.2xlarge +8 +32 +A10G:1 +\$1\.21\/h +unknown +\$2\.42\/h\n/, 'an alternative, unmarked');
    assert.match(r.out, /Prices: shipped table \(\d{4}-\d\d-\d\d\)\./);
    assert.ok(r.out.includes(`workdir ${repo} → ~/sky_workdir`), r.out);
    assert.ok(r.out.includes(`file_mounts ${path.join(repo, 'data')} → /data`), r.out);
    assert.match(r.out, /Setup: runs\./);
    assert.doesNotMatch((await b.run('status')).out, /d1/);
    assert.equal(b.cloud.storage.load().instances.length, 0);
  });

  it('--dryrun: spot and unknown types say "unknown", never $0; --infra and --no-setup show', async () => {
    const r = await inDir(repo, () => b.run('launch', 'examples/foo/task.yaml', '--dryrun', '--use-spot', '--infra', 'aws/r2', '--no-setup'));
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /1\. aws\/r2 \(spot\)\n/);
    assert.match(r.out, /\naws +r2 +g5\.xlarge +4 +16 +A10G:1 +\$1\.01\/h +unknown +unknown spot +✔\n/);
    assert.match(r.out, /Setup: skipped \(--no-setup\)/);
    const t = await inDir(repo, () => b.run('launch', 'echo x', '--dryrun', '--infra', 'aws', '--instance-type', 'zz.huge'));
    assert.match(t.out, /\naws +us-east-1\* +zz\.huge +\? +\? +- +unknown +unknown +unknown +✔\n/);
    assert.match(t.out, /\* no region named: priced in the cloud's reference region\./);
    assert.match(t.out, /No price known on this machine\./);
    assert.match(t.out, /Nothing is synced/);
    assert.doesNotMatch(r.out + t.out, /\$0/);
  });

  it('launch prints the same table on stderr before it provisions a new cloud cluster; not when it reuses one, not under --fast', async () => {
    const dry = await b.run('launch', '-c', 'pt', '--dryrun', '--infra', 'aws/r1/r1a', 'echo planned');
    const table = /Considered resources[^]*?Prices: [^\n]*\n/.exec(dry.out)?.[0];
    assert.ok(table, dry.out);
    const r = await b.run('launch', '-c', 'pt', '--infra', 'aws/r1/r1a', '-d', 'echo planned');
    assert.equal(r.code, 0, r.err);
    assert.ok(r.err.includes(table), `the launch's stderr holds the --dryrun table:\n${r.err}`);
    assert.ok(r.err.indexOf(table) < r.err.indexOf('Job '), 'the table comes before the job is submitted');
    assert.doesNotMatch(r.out, /Considered resources/, 'stdout stays the job\'s own');
    // Reused (UP) and --fast: nothing is provisioned, so no table.
    const again = await b.run('launch', '-c', 'pt', '--infra', 'aws/r1/r1a', '-d', 'echo again');
    assert.equal(again.code, 0, again.err);
    assert.doesNotMatch(again.err, /Considered resources/);
    const fast = await b.run('launch', '-c', 'pt', '--infra', 'aws/r1/r1a', '-d', '--fast', 'echo fast');
    assert.equal(fast.code, 0, fast.err);
    assert.doesNotMatch(fast.err, /Considered resources/);
    // A local launch bills no cloud: no table either.
    const local = await b.run('launch', '-c', 'pl', '-d', 'echo local');
    assert.equal(local.code, 0, local.err);
    assert.doesNotMatch(local.err, /Considered resources/);
    const { getCluster } = await import('../../../src/core/state');
    const c = await b.ctx.store.read((db) => getCluster(db, 'pt'));
    await b.ctx.connections.client(c!).shutdown();
    assert.equal((await b.run('down', 'pt', '-y')).code, 0);
    assert.equal((await b.run('down', 'pl', '-y')).code, 0);
  });

  it('--retry-until-up: capacity failures are retried until the cluster is up', async () => {
    b.cloud.inject({ op: 'runInstances', at: 'before', effect: 'capacity', times: 2 });
    const r = await b.run('launch', '-c', 'ru', '--infra', 'aws/r1/r1a', '--retry-until-up', 'echo finally-up');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /finally-up/);
    assert.equal(b.warnings.filter((w) => /round \d+: no placement came up; trying again in/.test(w)).length, 2, b.warnings.join('\n'));
    const row = await b.ctx.store.read((db) => db.exec("SELECT name FROM clusters WHERE name = 'ru'"));
    assert.equal(row[0].values.length, 1);
  });

  it('without --retry-until-up the same failure ends the launch; an auth failure stops retrying at once', async () => {
    b.cloud.inject({ op: 'runInstances', at: 'before', effect: 'capacity', times: 1 });
    const once = await b.run('launch', '-c', 'rn', '--infra', 'aws/r1/r1a', 'true');
    assert.equal(once.code, 1);
    b.cloud.inject({ op: 'runInstances', at: 'before', effect: 'auth', times: 1 });
    const auth = await b.run('launch', '-c', 'ra', '--infra', 'aws/r1/r1a', '--retry-until-up', 'true');
    assert.equal(auth.code, 1);
    assert.match(auth.err, /--retry-until-up stops: the auth failure is not fixed by waiting/);
  });

  it('down leaves nothing behind', async () => {
    const row = await b.ctx.store.read((db) => db.exec("SELECT name FROM clusters WHERE name = 'ru'"));
    assert.ok(row[0]?.values.length);
    const ru = (await import('../../../src/core/state')).getCluster;
    const c = await b.ctx.store.read((db) => ru(db, 'ru'));
    await b.ctx.connections.client(c!).shutdown();
    assert.equal((await b.run('down', 'ru', '-y')).code, 0);
    assert.deepEqual(await leaks({ store: b.ctx.store, cloud: b.cloud }), []);
  });
});
