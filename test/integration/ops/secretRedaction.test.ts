// Issue 19: a task's secrets, given as the editor gives them (launch/exec `secrets`), are
// visible only in the environment of the job's own processes: never in the workspace state, its
// events, the agent's job files, the job's log, the dry-run plan, what the user is shown, any
// process's command line, or another process's environment. Real agent on the local cloud.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { down, exec, launch, logs, queue } from '../../../src/core/ops';
import { launchPlan } from '../../../src/core/ops/launchPlan';
import { getCluster } from '../../../src/core/state';
import { testOps, type TestOps, waitFor, writeTask } from './helpers';

/** Every regular file under `dir` with what it holds (a file gone between listing and reading held nothing then). */
function filesUnder(dir: string): { file: string; text: Buffer }[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(p);
    if (!e.isFile()) return [];
    try {
      return [{ file: p, text: fs.readFileSync(p) }];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  });
}

/** Each live process: its command line and environment (processes that end meanwhile, or are not ours to read, are skipped). */
function processes(): { pid: string; cmdline: Buffer; environ?: Buffer }[] {
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).flatMap((pid) => {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`);
      let environ: Buffer | undefined;
      try {
        environ = fs.readFileSync(`/proc/${pid}/environ`);
      } catch {
        environ = undefined;
      }
      return [{ pid, cmdline, environ }];
    } catch {
      return [];
    }
  });
}

describe('secrets on the local cloud: only the job sees them (issue 19)', function () {
  this.timeout(90_000);
  let ops: TestOps;
  let home: string;
  const savedHome = process.env.SKYDECK_HOME;
  // A unique core to search for, wrapped in what a shell or a JSON writer would mangle.
  const core = `sk-${randomUUID()}`;
  const pwned = path.join(os.tmpdir(), `skydeck-pwned-${randomUUID()}`);
  const secret = `${core}$(touch ${pwned})'"\n\`id\``;
  const secret2 = `s2-${randomUUID()}`;

  beforeEach(async () => {
    ops = await testOps();
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-home-'));
    process.env.SKYDECK_HOME = home;
  });
  afterEach(async () => {
    await down(ops, 'sec', { graceSeconds: 1, purge: true }).catch(() => undefined);
    await ops.dispose();
    if (savedHome === undefined) delete process.env.SKYDECK_HOME;
    else process.env.SKYDECK_HOME = savedHome;
  });

  it('launch and exec with secrets (one waiting PENDING): nothing on disk, on a command line or shown holds a value', async () => {
    const ws = ops.workspaceRoot;
    const logged: string[] = [];
    ops.log = (m) => logged.push(m); // the editor's output channel gets these
    const out = path.join(os.tmpdir(), `skydeck-seen-${randomUUID()}`);
    const stop = path.join(ws, 'stop');
    const task = writeTask(ws, 'secret.sky.yaml', [
      'name: sec', 'resources: {cloud: local}', 'envs: {PLAIN: null}', 'secrets: {TOKEN: null}',
      'run: |',
      `  printf '%s' "$TOKEN" | sha256sum | cut -c1-64 > ${JSON.stringify(out)}`,
      `  printf '%s' "$PLAIN" >> ${JSON.stringify(out)}`,
      '  echo "job ran"',
      `  while [ ! -e ${JSON.stringify(stop)} ]; do sleep 0.1; done`,
    ].join('\n'));
    const plan = await launchPlan(ops, { taskFile: task, cluster: 'sec', envs: { PLAIN: 'plain-19' }, secrets: { TOKEN: secret } });
    assert.ok(!JSON.stringify(plan).includes(core), 'the dry-run plan holds the secret');

    const r = await launch(ops, { taskFile: task, cluster: 'sec', envs: { PLAIN: 'plain-19' }, secrets: { TOKEN: secret }, detach: true });
    await waitFor('the job to write what it saw', async () => fs.existsSync(out) && fs.readFileSync(out, 'utf8').endsWith('plain-19'), 30_000);
    const { createHash } = await import('node:crypto');
    assert.equal(fs.readFileSync(out, 'utf8'), `${createHash('sha256').update(secret).digest('hex')}\nplain-19`, 'the job saw the exact secret');
    fs.rmSync(out);

    // Capacity for one more running job only: the exec waits PENDING, its value held by the agent until it starts.
    const row = await ops.store.read((db) => getCluster(db, 'sec'));
    assert.ok(row);
    await ops.connections.client(row).configure({ capacity: { cpus: 1 } });
    const execTask = writeTask(ws, 'exec.sky.yaml', ['name: sec2', 'resources: {cpus: 1}', 'secrets: {TOKEN2: ""}', `run: test -n "$TOKEN2" && echo "exec saw it"`].join('\n'));
    const e = await exec(ops, { cluster: 'sec', taskFile: execTask, secrets: { TOKEN2: secret2 }, detach: true });
    assert.equal((await queue(ops, 'sec')).find((j) => j.job_id === e.jobId)?.status, 'PENDING');

    // While job 1 runs: no command line holds a value; every process whose environment does is job 1's.
    const procs = processes();
    for (const v of [core, secret2]) {
      assert.deepEqual(procs.filter((p) => p.cmdline.includes(v)).map((p) => `${p.pid}: ${p.cmdline.toString().replace(/\0/g, ' ')}`), [], 'on a command line');
    }
    const holders = procs.filter((p) => p.environ?.includes(core));
    assert.ok(holders.length > 0, 'no process holds the secret: the job is not running?');
    for (const p of holders) assert.ok(p.environ!.includes(`SKYDECK_JOB_ID=${r.jobId}\0`), `process ${p.pid} (${p.cmdline.toString().replace(/\0/g, ' ')}) holds the secret but is not job ${r.jobId}`);
    assert.deepEqual(procs.filter((p) => p.environ?.includes(secret2)).map((p) => p.pid), [], 'the pending job runs nowhere yet');

    fs.writeFileSync(stop, '');
    await waitFor('the pending exec to finish', async () => (await queue(ops, 'sec')).find((j) => j.job_id === e.jobId && j.status === 'SUCCEEDED'), 30_000);
    let log1 = '';
    let log2 = '';
    await logs(ops, { cluster: 'sec', jobId: r.jobId, onOutput: (d) => (log1 += d) });
    await logs(ops, { cluster: 'sec', jobId: e.jobId, onOutput: (d) => (log2 += d) });
    assert.match(log1, /job ran/);
    assert.match(log2, /exec saw it/);
    assert.ok(!fs.existsSync(pwned), 'a $(...) in the secret was run by a shell');

    // Now every file Skydeck wrote: the workspace's .skydeck (state.db with its events, the local
    // cluster's agent base: jobs.db, pending/, logs, sync manifests) and SKYDECK_HOME (user index).
    const files = [...filesUnder(path.join(ws, '.skydeck')), ...filesUnder(home)];
    assert.ok(files.some((f) => f.file.endsWith('state.db')), 'the state file was not found where expected');
    assert.ok(files.some((f) => /jobs\.db$/.test(f.file)), 'the agent\'s jobs.db was not found where expected');
    for (const v of [core, secret2]) {
      assert.deepEqual(files.filter((f) => f.text.includes(v)).map((f) => f.file), [], `${v.slice(0, 6)}… on disk`);
    }
    assert.ok(files.some((f) => /jobs\.db/.test(f.file) && f.text.includes('TOKEN2')), 'the agent keeps the secret names');
    const shown = [...ops.progressLines, ...ops.warnings, ...logged, log1, log2].join('\n');
    for (const v of [core, secret2]) assert.ok(!shown.includes(v), 'shown to the user');
  });
});
