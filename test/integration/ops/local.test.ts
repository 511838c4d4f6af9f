import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cancel, down, exec, launch, logs, queue, status } from '../../../src/core/ops';
import { testOps, TestOps, waitFor, writeTask } from './helpers';
import { localBaseDir } from '../../../src/core/ops/context';

describe('ops on the local cloud', function () {
  this.timeout(60_000);
  let ops: TestOps;
  beforeEach(async () => {
    ops = await testOps();
  });
  afterEach(async () => {
    await down(ops, 'loc', { graceSeconds: 1, purge: true }).catch(() => undefined);
    await ops.dispose();
  });

  it('issue 13.3: task secrets reach the job; the workspace holds their names, never their values', async () => {
    const ws = ops.workspaceRoot;
    const seen = path.join(ws, 'seen-by-job');
    const task = writeTask(ws, 'secret.yaml', [
      'resources: {cloud: local}', 'envs: {PLAIN: visible}', 'secrets: {API_KEY: null, INLINE: inline-secret-13.3}',
      `run: printf '%s|%s|%s' "$API_KEY" "$INLINE" "$PLAIN" > ${JSON.stringify(seen)}`,
    ].join('\n'));
    const r = await launch(ops, { taskFile: task, cluster: 'loc', envs: { API_KEY: 'given-secret-13.3' } });
    assert.equal(r.final?.status, 'SUCCEEDED');
    assert.equal(fs.readFileSync(seen, 'utf8'), 'given-secret-13.3|inline-secret-13.3|visible');
    const base = localBaseDir(ws, 'loc');
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : e.isFile() ? [path.join(d, e.name)] : []));
    const files = walk(path.join(ws, '.skydeck'));
    // The agent keeps running: a file listed a moment ago (Python's temporary .pyc, renamed into
    // place) may be gone when read; it held nothing then.
    const read = (f: string) => {
      try {
        return fs.readFileSync(f);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
        throw e;
      }
    };
    for (const value of ['given-secret-13.3', 'inline-secret-13.3']) {
      assert.deepEqual(files.filter((f) => read(f).includes(value)), [], value);
    }
    assert.ok(files.some((f) => f.startsWith(base) && read(f).includes('API_KEY')), 'the name is kept');
    assert.equal(fs.statSync(base).mode & 0o777, 0o700);
  });

  it('launch → exec ×3 → queue → logs → cancel → down', async () => {
    const ws = ops.workspaceRoot;
    fs.mkdirSync(path.join(ws, 'proj'));
    fs.writeFileSync(path.join(ws, 'proj', 'data.txt'), 'from the workdir\n');
    fs.writeFileSync(path.join(ws, 'proj', '.gitignore'), 'secret.txt\n');
    fs.writeFileSync(path.join(ws, 'proj', 'secret.txt'), 'must not be synced\n');
    fs.mkdirSync(path.join(ws, 'assets', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'assets', 'sub', 'weights.bin'), 'w');
    const mountDir = path.join(ws, 'mounted');
    const task = writeTask(ws, 'task.yaml', [
      'name: first', 'workdir: proj', 'resources: {cloud: local}', 'envs: {WHO: null}', `file_mounts: {${JSON.stringify(mountDir)}: assets}`,
      'setup: echo "setup ran"', 'run: |', '  cat data.txt', '  test -e secret.txt && echo LEAKED || echo ignored', '  echo "hi $WHO job $SKYPILOT_TASK_ID $SKYDECK_JOB_ID"',
    ].join('\n'));
    let out = '';
    const r = await launch(ops, { taskFile: task, cluster: 'loc', envs: { WHO: 'tester' }, onOutput: (d) => (out += d) });
    assert.equal(r.final?.status, 'SUCCEEDED', out);
    assert.match(out, /setup ran\nfrom the workdir\nignored\nhi tester job \S* 1\n/);
    assert.ok(ops.progressLines.some((l) => /Connecting to loc/.test(l)));
    assert.equal(fs.readFileSync(path.join(mountDir, 'sub', 'weights.bin'), 'utf8'), 'w', 'a directory file mount arrived');
    // Issue 12.6: the user is told that the "node" is this machine.
    assert.ok(ops.warnings.some((w) => w.includes(`on the local cloud the cluster is this machine: file_mounts write to this machine's files`) &&
      w.includes(JSON.stringify(mountDir))), ops.warnings.join('\n'));

    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = writeTask(ws, `exec${i}.yaml`, `name: ex${i}\nsetup: echo SETUP-SHOULD-NOT-RUN\nrun: echo exec ${i}; sleep ${i === 2 ? 30 : 0}\n`);
      const e = await exec(ops, { cluster: 'loc', taskFile: t, envs: {}, detach: true });
      ids.push(e.jobId);
    }
    assert.deepEqual(ids, [2, 3, 4]);
    await waitFor('exec jobs 2 and 3 to finish', async () => {
      const q = await queue(ops, 'loc');
      return q.filter((j) => j.job_id <= 3).every((j) => j.status === 'SUCCEEDED') && q;
    });
    let log2 = '';
    const l = await logs(ops, { cluster: 'loc', jobId: 2, onOutput: (d) => (log2 += d) });
    assert.equal(log2, 'exec 0\n', 'exec runs no setup');
    assert.equal(l.final?.status, 'SUCCEEDED');

    await waitFor('job 4 running', async () => (await queue(ops, 'loc')).find((j) => j.job_id === 4 && j.status === 'RUNNING'));
    const c = await cancel(ops, 'loc', { jobIds: [4] }, 1);
    assert.deepEqual(c.cancelled, [4]);
    const q = await waitFor('job 4 cancelled', async () => {
      const rows = await queue(ops, 'loc');
      return rows.find((j) => j.job_id === 4)?.status === 'CANCELLED' && rows;
    });
    assert.deepEqual(q.map((j) => j.name), ['first', 'ex0', 'ex1', 'ex2']);

    const st = await status(ops, { refresh: true });
    assert.equal(st[0].cluster.status, 'UP');
    assert.deepEqual(st[0].live, { running: 0, pending: 0 });

    const base = path.join(ws, '.skydeck', 'local', 'loc');
    assert.ok(fs.existsSync(path.join(base, 'jobs.db')));
    const d = await down(ops, 'loc', { graceSeconds: 1 });
    assert.equal(d.cleaned, true);
    assert.equal(fs.existsSync(base), false, 'the agent base dir is removed');
    assert.deepEqual(await status(ops), []);
  });

  it('a failing job reports its exit code; a missing env names the flag to use', async () => {
    const ws = ops.workspaceRoot;
    await assert.rejects(
      launch(ops, { taskFile: writeTask(ws, 'a.yaml', 'resources: {cloud: local}\nenvs: {TOKEN: null}\nrun: exit 3\n'), cluster: 'loc' }),
      /a\.yaml:2:8: error: environment variable "TOKEN" has no value \(pass it at launch with --env TOKEN=VALUE/,
    );
    const r = await launch(ops, { taskFile: writeTask(ws, 'b.yaml', 'resources: {cloud: local}\nrun: echo bye; exit 3\n'), cluster: 'loc' });
    assert.equal(r.final?.status, 'FAILED');
    assert.equal(r.final?.exit_code, 3);
  });

  it('refuses clouds that have not landed, bad names and pipelines with clear errors', async () => {
    const ws = ops.workspaceRoot;
    await assert.rejects(launch(ops, { taskFile: writeTask(ws, 'aws.yaml', 'resources: {cloud: aws}\nrun: echo\n'), cluster: 'c1' }), /launching on aws is not available yet/);
    await assert.rejects(launch(ops, { taskFile: writeTask(ws, 'ok.yaml', 'run: echo\n'), cluster: 'bad name;rm' }), /cluster name "bad name;rm" is not valid/);
    await assert.rejects(
      launch(ops, { taskFile: writeTask(ws, 'p.yaml', 'name: a\nrun: echo 1\n---\nname: b\nrun: echo 2\n'), cluster: 'c2' }),
      /p\.yaml:\d+:\d+: this file is a pipeline \(2 tasks\)/,
    );
    assert.deepEqual(await status(ops), [], 'nothing was written for refused launches');
  });
});

describe('agent channel on the local cloud', function () {
  this.timeout(60_000);
  it('restarts the serve process transparently when it dies', async () => {
    const ops = await testOps();
    try {
      const t = writeTask(ops.workspaceRoot, 't.yaml', 'resources: {cloud: local}\nrun: echo one\n');
      await launch(ops, { taskFile: t, cluster: 'r', detach: true });
      const row = (await status(ops))[0].cluster;
      const client = ops.connections.client(row);
      const before = (await client.status()) as { version: string };
      assert.ok(before.version);
      // Kill the serve process behind the channel (its pid is in the agent's hello).
      const pid = await client.servePid();
      process.kill(pid, 'SIGKILL');
      await waitFor('serve to die', async () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      });
      const q = await queue(ops, 'r');
      assert.equal(q[0].job_id, 1, 'the next call reconnected and answered');
    } finally {
      await down(ops, 'r', { graceSeconds: 0, purge: true }).catch(() => undefined);
      await ops.dispose();
    }
  });
});
