// `skydeck jobs logs` beyond the live follow: the output the controller keeps of each cluster
// before tearing it down (an ended job's log, across a recovery, with the marked line between),
// and `--controller`: the job's recorded status changes and the controller log's lines about it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import type { OpsContext } from '../../../src/core/ops';
import { keepLog, keptLogDir, readKeptLog, type ManagedController } from '../../../src/core/managed';
import { cleanupBase } from '../agent/helpers';
import { FakeProvider } from '../../support/fakeCloud/fakeProvider';
import { leaks } from '../../support/fakeCloud/harness';
import { ended, makeCtx, openController, tempRoot, waitJob } from '../managed/helpers';

describe('cli: skydeck jobs logs (kept output, --controller)', function () {
  this.timeout(120_000);
  let root: string;
  let ctx: OpsContext;
  let cloud: FakeProvider;
  let ctl: ManagedController;
  const run = async (...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli(argv, { out: (t) => (out += t), outBytes: (d) => (out += d.toString('latin1')), err: (t) => (err += t) }, async () => ctx);
    return { code, out, err };
  };
  const launch = async (name: string, text: string) => {
    const f = path.join(root, name);
    fs.writeFileSync(f, text);
    const r = await run('jobs', 'launch', f, '-d', '-y');
    assert.equal(r.code, 0, r.err);
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

  it('a job restarted after its own failure, once ended: jobs logs prints both clusters\' output byte for byte, a marked line between', async () => {
    const m = path.join(root, 'ran-once');
    // Bytes a lossy read would mangle: a lone 0xff (printf's octal), a CR, no final newline on the first run.
    const id = await launch('restart.yaml', 'resources:\n  infra: aws/r1\n  job_recovery: {max_restarts_on_errors: 1}\n' +
      `run: if [ -e ${m} ]; then echo second-run; else touch ${m}; printf 'first-run \\377 cr\\r'; exit 1; fi\n`);
    const j = await waitJob(ctl, id, ended, 'finished');
    assert.equal(j.status, 'SUCCEEDED', j.lastError ?? '');
    assert.equal(j.restartsOnErrors, 1);
    const r = await run('jobs', 'logs', String(id));
    assert.equal(r.code, 0, r.err);
    const marker = `--- managed job ${id}: now on cluster ${j.name}-mj${id}-2 (launch 2) ---`;
    assert.equal(r.out, `first-run \xff cr\r\n${marker}\nsecond-run\n`);
    assert.match(r.err, new RegExp(`Managed job ${id} SUCCEEDED`));
    // The files: one per cluster, named by launch and cluster.
    assert.deepEqual(fs.readdirSync(keptLogDir(root, id)).sort(), [`1-${j.name}-mj${id}-1.log`, `2-${j.name}-mj${id}-2.log`]);
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
  });

  it('a preempted cluster\'s output: kept if the controller read it in time, else the kept log says so where it would be', async () => {
    const m = path.join(root, 'pre-once');
    const id = await launch('pre.yaml', `resources:\n  infra: aws/r1\nrun: if [ -e ${m} ]; then echo after-recovery; else touch ${m}; sleep 60; fi\n`);
    const first = await waitJob(ctl, id, (j) => j.status === 'RUNNING' && fs.existsSync(m), 'running');
    cloud.cloudActs('preempt', { uid: first.clusterUid! });
    const j = await waitJob(ctl, id, ended, 'finished');
    assert.equal(j.status, 'SUCCEEDED', j.lastError ?? '');
    const r = await run('jobs', 'logs', String(id));
    assert.equal(r.code, 0, r.err);
    // Whether the first cluster's output could still be read depends on when the controller
    // looked: before the preemption's teardown (then it is kept: what the job printed, at most
    // the shell's "Terminated"), or after (then a note in its place says why). Never silence.
    const tail = `--- managed job ${id}: now on cluster ${j.name}-mj${id}-2 (launch 2) ---\nafter-recovery\n`;
    assert.ok(r.out.endsWith(tail), r.out);
    const firstOut = r.out.slice(0, -tail.length);
    const note = `[skydeck: the output on cluster ${j.name}-mj${id}-1 could not be kept: `;
    assert.ok((firstOut.startsWith(note) && firstOut.endsWith(']\n') && firstOut.split('\n').length === 2) || /^(Terminated\n)?$/.test(firstOut), r.out);
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
  });

  it('jobs logs --controller: the status changes with times and reasons, and only this job\'s controller log lines', async () => {
    const id = await launch('ok.yaml', 'resources:\n  infra: aws/r1\nrun: echo fine\n');
    await waitJob(ctl, id, ended, 'finished');
    // The background controller writes its log here; job 1x must not match job 1.
    fs.writeFileSync(path.join(root, 'controller.log'), [
      `2026-01-01T00:00:00.000Z controller pid 7: managed job ${id} (RUNNING): the head did not answer`,
      `2026-01-01T00:00:01.000Z controller pid 7: managed job ${id}1 (RUNNING): another job`,
      `2026-01-01T00:00:02.000Z controller pid 7: serving the store`, '',
    ].join('\n'));
    const r = await run('jobs', 'logs', String(id), '--controller');
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trimEnd().split('\n');
    assert.match(lines[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}- -> PENDING {2}submitted$/);
    assert.match(lines[1], /^\S+ {2}PENDING -> STARTING {2}launching task 1 of 1$/);
    assert.match(lines[2], /^\S+ {2}STARTING -> RUNNING {2}launched \S+-mj\d+-1 in r1, agent job \d+$/);
    assert.match(lines[3], /^\S+ {2}RUNNING -> SUCCEEDED {2}every task succeeded$/);
    assert.deepEqual(lines.slice(4), [`2026-01-01T00:00:00.000Z controller pid 7: managed job ${id} (RUNNING): the head did not answer`]);
    assert.equal((await run('jobs', 'logs', '999', '--controller')).code, 2);
  });

  it('jobs logs --controller prints a hostile reason on one line, control characters escaped', async () => {
    const id = await launch('q.yaml', 'resources:\n  infra: aws/r1\nrun: sleep 60\n');
    fs.writeFileSync(path.join(root, 'controller.log'), `x: managed job ${id}: evil \x1b]0;title\x07 and\nnext\n`);
    const r = await run('jobs', 'logs', String(id), '--controller');
    assert.equal(r.code, 0, r.err);
    assert.ok(!r.out.includes('\x1b') && !r.out.includes('\x07'), JSON.stringify(r.out));
    assert.match(r.out, /evil \\x1b\]0;title\\x07 and$/m);
    await run('jobs', 'cancel', String(id));
    await waitJob(ctl, id, ended, 'cancelled');
  });

  it('keepLog is bounded (a note says what was cut) and keeps an existing segment as it is', async () => {
    const id = await launch('big.yaml', 'resources:\n  infra: aws/r1\nrun: seq 1 20000; sleep 60\n');
    const j = await waitJob(ctl, id, (x) => x.status === 'RUNNING', 'running');
    const other = tempRoot();
    const octx = { ...ctx, workspaceRoot: other };
    let kept: Buffer | undefined;
    for (let i = 0; i < 200 && !kept?.includes('[skydeck:'); i++) {
      fs.rmSync(keptLogDir(other, id), { recursive: true, force: true });
      await keepLog(octx, j, { maxBytes: 1000 });
      kept = readKeptLog(other, id);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(kept, 'nothing kept');
    assert.equal(kept.subarray(0, 1000).toString(), Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join('').slice(0, 1000));
    assert.match(kept.subarray(1000).toString(), /^\n\[skydeck: output after the first 1000 bytes was not kept\]\n$/);
    await keepLog(octx, j, { maxBytes: 10 });
    assert.deepEqual(readKeptLog(other, id), kept, 'a second keep of the same cluster changes nothing');
    await run('jobs', 'cancel', String(id));
    await waitJob(ctl, id, ended, 'cancelled');
    fs.rmSync(other, { recursive: true, force: true });
  });
});
