// `skydeck jobs` end to end in one process: the CLI writes to the controller's store, and a
// controller over the fake cloud (as aws, instances = this machine) picks the jobs up on its
// scan, exactly as the background controller does; its live lease means no process is spawned.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import type { OpsContext } from '../../../src/core/ops';
import { listClusters } from '../../../src/core/state';
import type { ManagedController } from '../../../src/core/managed';
import { cleanupBase } from '../agent/helpers';
import { FakeProvider } from '../../support/fakeCloud/fakeProvider';
import { leaks } from '../../support/fakeCloud/harness';
import { ended, makeCtx, openController, tempRoot, waitJob } from '../managed/helpers';

describe('cli: skydeck jobs (local controller over the fake cloud)', function () {
  this.timeout(120_000);
  let root: string;
  let ctx: OpsContext;
  let cloud: FakeProvider;
  let ctl: ManagedController;
  const run = async (...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli(argv, { out: (t) => (out += t), outBytes: (d) => (out += d.toString()), err: (t) => (err += t) }, async () => ctx);
    return { code, out, err };
  };
  const taskFile = (name: string, text: string) => {
    const f = path.join(root, name);
    fs.writeFileSync(f, text);
    return f;
  };
  const launchId = async (...argv: string[]) => {
    const r = await run('jobs', 'launch', ...argv, '-d', '-y');
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, new RegExp(`Controller on this machine: pid ${process.pid}\.`));
    return Number(r.out.trim());
  };

  before(async () => {
    process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
    root = tempRoot();
    ({ ctx, cloud } = await makeCtx(root));
    ctl = await openController(ctx);
  });
  after(async () => {
    delete process.env.SKYDECK_SHUTDOWN_COMMAND;
    await ctl?.stop();
    await ctx.connections.closeAll();
    ctx.store.close();
    await cleanupBase(root);
  });

  it('launch → queue shows it → SUCCEEDED → only queue --all lists it', async () => {
    const id = await launchId(taskFile('ok.yaml', 'name: cli-ok\nresources:\n  infra: aws/r1\nrun: sleep 1; echo done\n'), '--env', 'A=1');
    const q = await run('jobs', 'queue');
    assert.equal(q.code, 0, q.err);
    assert.match(q.out, /^ID +NAME +STATUS +RECOVERIES +CLUSTER +DURATION$/m);
    assert.match(q.out, new RegExp(`^${id} +cli-ok +(PENDING|STARTING|RUNNING) +0 `, 'm'));
    const j = await waitJob(ctl, id, ended, 'finished');
    assert.equal(j.status, 'SUCCEEDED', j.lastError ?? '');
    assert.deepEqual(j.envs, { A: '1' });
    assert.doesNotMatch((await run('jobs', 'queue')).out, new RegExp(`^${id} `, 'm'));
    assert.match((await run('jobs', 'queue', '--all')).out, new RegExp(`^${id} +cli-ok +SUCCEEDED +0 +- +\\d+(s|m \\d+s)$`, 'm'));
    // --refresh starts a stopped controller VM; with the controller on this machine it changes nothing.
    const refreshed = await run('jobs', 'queue', '--all', '--refresh');
    assert.equal(refreshed.code, 0, refreshed.err);
    assert.match(refreshed.out, new RegExp(`^${id} +cli-ok +SUCCEEDED `, 'm'));
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
  });

  it('--secret and --env-file fill what the task leaves empty; the job gets them, the output names no value', async () => {
    const envFile = path.join(root, 'job.env');
    fs.writeFileSync(envFile, 'FROM_FILE=f1\nA=from-file\n');
    const secret = 's3cr"et $(touch nope)';
    const task = taskFile('sec.yaml', 'name: cli-sec\nresources:\n  infra: aws/r1\nenvs:\n  A: null\n  FROM_FILE: null\nsecrets:\n  TOKEN: null\nrun: echo "len ${#TOKEN} $A $FROM_FILE"\n');
    const r = await run('jobs', 'launch', task, '--env-file', envFile, '--env', 'A=flag', '--secret', `TOKEN=${secret}`, '-d', '-y');
    assert.equal(r.code, 0, r.err);
    assert.ok(!(r.out + r.err).includes('s3cr'), 'the secret is not printed');
    const j = await waitJob(ctl, Number(r.out.trim()), ended, 'finished');
    assert.equal(j.status, 'SUCCEEDED', j.lastError ?? '');
    assert.deepEqual(j.envs, { FROM_FILE: 'f1', A: 'flag', TOKEN: secret });
    const bad = await run('jobs', 'launch', task, '--secret', '1BAD=x', '-d', '-y');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--secret .*"1BAD" is not a valid variable name/);
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
  });

  it('cancel of a running job: CANCELLED, its cluster torn down, 0 leaks', async () => {
    const id = await launchId(taskFile('long.yaml', 'resources:\n  infra: aws/r1\nrun: sleep 120\n'), '-n', 'long');
    await waitJob(ctl, id, (j) => j.status === 'RUNNING', 'running');
    const c = await run('jobs', 'cancel', String(id));
    assert.equal(c.code, 0, c.err);
    assert.match(c.out, new RegExp(`Cancelling managed job\\(s\\) ${id};`));
    const j = await waitJob(ctl, id, ended, 'cancelled');
    assert.equal(j.status, 'CANCELLED');
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
    const again = await run('jobs', 'cancel', String(id));
    assert.equal(again.code, 1);
    assert.match(again.err, new RegExp(`Not cancelled \\(unknown or already ended\\): ${id}`));
    assert.equal((await run('jobs', 'cancel', '--all')).code, 2, '--all without -y is refused');
  });

  it('bad YAML exits 2 with file:line:col and records nothing', async () => {
    const before = (await ctl.list()).jobs.length;
    const f = taskFile('bad.yaml', 'run: echo hi\nresources:\n  cpus: lots\n');
    const r = await run('jobs', 'launch', f, '-d', '-y');
    assert.equal(r.code, 2);
    assert.match(r.err, new RegExp(`${f.replace(/[.]/g, '\\.')}:3:\\d+: error: `));
    assert.equal((await ctl.list()).jobs.length, before);
  });

  it('a task the GCP controller would refuse (ports) exits 2 before any controller is started or job recorded', async () => {
    const before = (await ctl.list()).jobs.length;
    const f = taskFile('ports.yaml', 'run: echo hi\n---\nresources:\n  ports: 8080\nrun: python -m http.server 8080\n');
    const was = process.env.SKYDECK_JOBS_CONTROLLER;
    process.env.SKYDECK_JOBS_CONTROLLER = 'gcp';
    try {
      const r = await run('jobs', 'launch', f, '-d', '-y');
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /task 2 of the managed job cannot run on the gcp controller: resources\.ports: .*\(controller from SKYDECK_JOBS_CONTROLLER\)/);
    } finally {
      if (was === undefined) delete process.env.SKYDECK_JOBS_CONTROLLER;
      else process.env.SKYDECK_JOBS_CONTROLLER = was;
    }
    // No controller cluster row (nothing launched, no GCP call made), no job.
    assert.deepEqual((await ctx.store.read((db) => listClusters(db))).filter((c) => c.name.startsWith('skydeck-jobs-')), []);
    assert.equal((await ctl.list()).jobs.length, before);
  });

  it('jobs logs prints the job\'s output and exits with its result; no cluster yet is refused', async () => {
    const id = await launchId(taskFile('hello.yaml', 'resources:\n  infra: aws/r1\nrun: echo managed-hello; sleep 2\n'));
    const early = await run('jobs', 'logs', String(id));
    if (early.code === 1) assert.match(early.err, new RegExp(`no output to show for managed job ${id}: it has no cluster yet \\((PENDING|STARTING)\\)`));
    else assert.match(early.out, /managed-hello/);
    await waitJob(ctl, id, (j) => j.status === 'RUNNING' || ended(j), 'running');
    const l = await run('jobs', 'logs', String(id));
    assert.equal(l.code, 0, l.err);
    assert.match(l.out, /managed-hello/);
    assert.match(l.err, new RegExp(`Managed job ${id} SUCCEEDED`));
    const gone = await run('jobs', 'logs', '999');
    assert.equal(gone.code, 2);
  });

  it('launch without -d follows the output to the end; a "no" at the prompt launches nothing', async () => {
    const f = taskFile('follow.yaml', 'resources:\n  infra: aws/r1\nrun: echo followed-out; sleep 1\n');
    const r = await run('jobs', 'launch', f, '-y');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /followed-out/);
    assert.match(r.err, /Managed job \d+ SUCCEEDED/);
    const before = (await ctl.list()).jobs.length;
    let asked = '';
    const code = await runCli(['jobs', 'launch', f], { out: () => undefined, outBytes: () => undefined, err: () => undefined, ask: async (q) => ((asked = q), 'n') }, async () => ctx);
    assert.equal(code, 1);
    assert.match(asked, /Launch managed job \(unnamed\) \(one task\)/);
    assert.equal((await ctl.list()).jobs.length, before);
  });

  it('a multi-document YAML runs as one pipeline, task after task', async () => {
    const m = path.join(root, 'pipe-marker');
    const f = taskFile('pipe.yaml', `name: pipe\n---\nresources:\n  infra: aws/r1\nrun: touch ${m}\n---\nresources:\n  infra: aws/r1\nrun: test -e ${m}\n`);
    const id = await launchId(f);
    const j = await waitJob(ctl, id, ended, 'finished');
    assert.equal(j.status, 'SUCCEEDED', j.lastError ?? '');
    assert.deepEqual([j.name, j.tasks.length, j.launches], ['pipe', 2, 2]);
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
  });
});
