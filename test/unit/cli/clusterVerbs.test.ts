// autostop, queue across clusters, status --endpoints and cluster globs, on the fake cloud as
// aws (instances = this machine, so each head runs a real agent).
import assert from 'node:assert/strict';
import { getCluster } from '../../../src/core/state';
import { globRegExp, localBaseDir, queue as queueOp } from '../../../src/core/ops';
import { TERMINAL_STATUSES } from '../../../src/core/jobs/protocol';
import { cli as agentCli } from '../agent/helpers';
import { leaks } from '../../support/fakeCloud/harness';
import { openBench, type Bench } from './helpers';

describe('cli: autostop, queue, endpoints and globs (fake cloud as aws)', function () {
  this.timeout(120_000);
  let b: Bench;
  const row = (name: string) => b.ctx.store.read((db) => getCluster(db, name));

  before(async () => {
    process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
    b = await openBench('skydeck-cli-verbs-');
    for (const [name, extra] of [['dev-1', ['--ports', '8080', '--ports', '9000-9001']], ['dev-2', []]] as const) {
      const r = await b.run('launch', '-c', name, '--infra', 'aws/r1', ...extra, `echo job-of-${name}`);
      assert.equal(r.code, 0, r.err);
    }
  });
  after(async () => {
    delete process.env.SKYDECK_SHUTDOWN_COMMAND;
    await b.close();
  });

  it('autostop -i sets the row and the head agent; --cancel turns it off', async () => {
    const r = await b.run('autostop', 'dev-1', '-i', '7');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Autostop of dev-1: 7m\./);
    assert.equal((await row('dev-1'))!.autostop_minutes, 7);
    const agent = await agentCli(localBaseDir(b.root, 'dev-1'), ['status']);
    assert.deepEqual([agent.autostop.idle_minutes, agent.autostop.down, agent.autostop.action], [7, false, 'shutdown']);
    const c = await b.run('autostop', 'dev-1', '--cancel');
    assert.equal(c.code, 0, c.err);
    assert.equal((await row('dev-1'))!.autostop_minutes, null);
    assert.equal((await agentCli(localBaseDir(b.root, 'dev-1'), ['status'])).autostop, null);
  });

  it('autostop --down on an AWS cluster launched to stop is refused with the fix; bad flags are usage errors', async () => {
    const r = await b.run('autostop', 'dev-1', '--down');
    assert.equal(r.code, 2);
    assert.match(r.err, /launched to stop when they shut down; .* relaunch the cluster with --down/);
    assert.equal((await b.run('autostop', 'dev-1', '--cancel', '-i', '3')).code, 2);
    assert.match((await b.run('autostop', 'nope-*', '-i', '3')).err, /no cluster matches "nope-\*"/);
  });

  it('an AWS spot cluster cannot be stopped: stop, autostop and launch -i without --down are refused with the fix', async () => {
    const early = await b.run('launch', '-c', 'spot-1', '--infra', 'aws/r1', '--use-spot', '-i', '5', 'echo never');
    assert.equal(early.code, 2, early.err);
    assert.match(early.err, /AWS spot instances cannot be stopped .*add --down/);
    assert.equal(await row('spot-1'), undefined, 'nothing was created');
    const r = await b.run('launch', '-c', 'spot-1', '--infra', 'aws/r1', '--use-spot', 'echo spot');
    assert.equal(r.code, 0, r.err);
    const stop = await b.run('stop', 'spot-1', '-y');
    assert.notEqual(stop.code, 0);
    assert.match(stop.err, /spot-1 cannot be stopped: AWS spot instances cannot be stopped .*use "down"/);
    assert.equal((await row('spot-1'))!.status, 'UP', 'the refusal changed nothing');
    const a = await b.run('autostop', 'spot-1', '-i', '5');
    assert.equal(a.code, 2);
    assert.match(a.err, /AWS spot instances cannot be stopped .*use --down/);
    const d = await b.run('autostop', 'spot-1', '-i', '5', '--down');
    assert.equal(d.code, 0, d.err);
    assert.deepEqual([(await row('spot-1'))!.autostop_minutes, (await row('spot-1'))!.autostop_down], [5, 1]);
    assert.equal((await b.run('down', 'spot-1', '-y')).code, 0);
  });

  it("autostop 'dev-*' reaches every matching cluster", async () => {
    const r = await b.run('autostop', 'dev-*', '-i', '9');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual([(await row('dev-1'))!.autostop_minutes, (await row('dev-2'))!.autostop_minutes], [9, 9]);
    assert.match((await b.run('status', 'dev-?')).out, /dev-1 .* 9m[\s\S]*dev-2 .* 9m/);
    await b.run('autostop', 'dev-*', '--cancel');
  });

  it('queue with no cluster lists every UP cluster; -s hides ended jobs; -u shows other users', async () => {
    const all = await b.run('queue');
    assert.equal(all.code, 0, all.err);
    assert.match(all.out, /Job queue of dev-1[\s\S]*SUCCEEDED[\s\S]*Job queue of dev-2[\s\S]*SUCCEEDED/);
    const skip = await b.run('queue', '-s');
    assert.doesNotMatch(skip.out, /SUCCEEDED/);
    b.ctx.user = 'someone-else';
    try {
      assert.equal((await b.run('exec', 'dev-2', '-d', '-n', 'theirs', 'true')).code, 0);
    } finally {
      b.ctx.user = 'tester';
    }
    assert.doesNotMatch((await b.run('queue', 'dev-2')).out, /theirs/);
    assert.match((await b.run('queue', 'dev-2', '-u')).out, /theirs +someone-else/);
  });

  it('status --endpoints / --endpoint PORT print HOST:PORT for the opened ports only', async () => {
    const host = (await row('dev-1'))!.head_address!;
    const e = await b.run('status', '--endpoints', 'dev-1');
    assert.equal(e.code, 0, e.err);
    assert.equal(e.out, `8080: ${host}:8080\n9000: ${host}:9000\n9001: ${host}:9001\n`);
    assert.equal((await b.run('status', '--endpoint', '9001', 'dev-1')).out, `${host}:9001\n`);
    const closed = await b.run('status', '--endpoint', '22', 'dev-1');
    assert.equal(closed.code, 2);
    assert.match(closed.err, /port 22 is not opened on dev-1 \(ports: 8080, 9000-9001\)/);
    assert.match((await b.run('status', '--endpoints', 'dev-2')).out, /dev-2 opens no ports/);
    assert.equal((await b.run('status', '--endpoints', 'dev-*')).code, 2);
  });

  it("down 'dev-*' tears down both, and nothing leaks", async () => {
    // The detached `exec … true` of the queue test may still be finishing on a loaded machine:
    // the agent refuses to shut down with a job unfinished, so wait for every job to end first.
    for (const n of ['dev-1', 'dev-2']) {
      for (let i = 0; ; i++) {
        const jobs = await queueOp(b.ctx, n);
        if (jobs.every((j) => TERMINAL_STATUSES.has(j.status))) break;
        if (i > 600) assert.fail(`jobs of ${n} still unfinished after 60 s: ${jobs.map((j) => `${j.job_id} ${j.status}`).join(', ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await b.ctx.connections.client((await row(n))!).shutdown();
    }
    const r = await b.run('down', 'dev-*', '-y');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Cluster dev-1 .* is down[\s\S]*Cluster dev-2 .* is down/);
    assert.deepEqual(await leaks({ store: b.ctx.store, cloud: b.cloud }), []);
  });
});

describe('cluster name globs (fnmatch forms)', () => {
  const m = (p: string, s: string) => globRegExp(p).test(s);
  it('*, ?, [seq], [!seq]; everything else is literal', () => {
    assert.ok(m('dev-*', 'dev-1') && m('dev-*', 'dev-') && !m('dev-*', 'xdev-1'));
    assert.ok(m('d?v', 'dev') && !m('d?v', 'deev'));
    assert.ok(m('c[12]', 'c1') && !m('c[12]', 'c3') && m('c[!12]', 'c3') && !m('c[!12]', 'c1'));
    assert.ok(m('a.b', 'a.b') && !m('a.b', 'axb'));
    assert.ok(m('x[', 'x[') && m('(a)', '(a)') && !m('a+', 'aa'));
  });
});
