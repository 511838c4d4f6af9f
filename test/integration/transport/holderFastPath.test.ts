// The thin CLI's fast path (src/cli/thin.ts → the holder's warm worker, src/cli/worker.ts)
// against a real sshd, built as users get it: dist-like cli.js + cli-main.js.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { startHosts, type TestHost, type TestHosts } from '../../hosts';
import { down, launch, status } from '../../../src/core/ops';
import { testOps, waitFor, type TestOps } from '../ops/helpers';

const ROOT = path.resolve(__dirname, '../../..');
interface Run { code: number | null; out: string; err: string }
const WORKER = /run by the connection holder's worker \(pid (\d+)\)/;

/** cli.js (thin) and cli-main.js (the CLI) side by side, with the agent and sql.js's WASM. */
async function buildCli(): Promise<string> {
  const dir = path.join(ROOT, 'out', 'test-thin');
  const common = { bundle: true, platform: 'node' as const, format: 'cjs' as const, logLevel: 'error' as const, external: ['vscode', 'cpu-features', '*.node'] };
  await build({ ...common, entryPoints: [path.join(ROOT, 'src/cli/thin.ts')], outfile: path.join(dir, 'cli.js') });
  await build({ ...common, entryPoints: [path.join(ROOT, 'src/cli/main.ts')], outfile: path.join(dir, 'cli-main.js') });
  fs.cpSync(path.join(ROOT, 'agent'), path.join(dir, 'agent'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(dir, 'sql-wasm.wasm'));
  return path.join(dir, 'cli.js');
}

describe('transport/holder: the thin CLI hands exec to a warm worker of the holder', function () {
  this.timeout(180_000);
  let hosts: TestHosts;
  let h: TestHost;
  let ops: TestOps;
  let cli: string;
  let env: NodeJS.ProcessEnv;
  let holderDir: string;
  const started: ChildProcess[] = [];

  const task = (name: string, run: string): string => {
    const f = path.join(ops.workspaceRoot, `${name}.yaml`);
    fs.writeFileSync(f, `run: ${JSON.stringify(run)}\n`);
    return f;
  };
  const runCli = (args: string[], extra: NodeJS.ProcessEnv = {}, onOut?: (s: string, c: ChildProcess, err: string) => void, cwd?: string): Promise<Run> =>
    new Promise((resolve) => {
      const c = spawn(process.execPath, [cli, ...args], { env: { ...env, ...extra }, ...(cwd ? { cwd } : {}) });
      let out = '';
      let err = '';
      c.stdout.on('data', (d) => { out += d; onOut?.(out, c, err); });
      c.stderr.on('data', (d) => (err += d));
      c.on('close', (code) => resolve({ code, out, err }));
    });
  const sock = (): string => path.join(holderDir, 'holder.sock');
  const holderPid = (): number => Number(fs.readFileSync(path.join(holderDir, 'holder.pid'), 'utf8'));
  const answers = (): Promise<boolean> => new Promise((r) => {
    const c = net.connect(sock());
    c.once('connect', () => { c.destroy(); r(true); });
    c.once('error', () => r(false));
  });
  /** A holder of this build, and a run through its worker (the worker warms up meanwhile). */
  const warmHolder = async (): Promise<void> => {
    const c = spawn(process.execPath, [path.join(path.dirname(cli), 'cli-main.js'), '__holder'], { env, detached: true, stdio: 'ignore' });
    started.push(c);
    await waitFor('the holder', answers);
    const r = await runCli(['exec', 'b', 'echo warm']);
    assert.equal(r.out, 'warm\n', r.err);
    assert.match(r.err, WORKER, 'the run after the holder started is the worker\'s');
  };
  const stopHolder = async (): Promise<void> => {
    if (!fs.existsSync(path.join(holderDir, 'holder.pid'))) return;
    try { process.kill(holderPid(), 'SIGTERM'); } catch { /* gone */ }
    await waitFor('the holder to stop', async () => !fs.existsSync(sock()));
  };
  /** How many jobs the node has ever had (each exec adds exactly one). */
  const jobCount = async (): Promise<number> => (await ops.connections.client((await status(ops))[0].cluster).queueSnapshot()).length;

  before(async () => {
    hosts = await startHosts(1);
    h = hosts.hosts[0];
    cli = await buildCli();
    const pool = { name: 'p', hosts: [{ address: h.address, port: h.port, user: h.user, identityFile: hosts.clientKeyPath }] };
    const noSsh = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-fast-nossh-'));
    ops = await testOps({ pools: [pool], connections: { sshDefaults: { agent: false, sshDir: noSsh, userKnownHostsFiles: [] } } });
    const knownHosts = path.join(ops.workspaceRoot, 'known_hosts');
    fs.writeFileSync(knownHosts, hosts.knownHostsLine(h) + '\n');
    fs.writeFileSync(path.join(ops.workspaceRoot, 'up.yaml'), 'resources: {cloud: ssh}\nrun: "true"\n');
    await launch(ops, { taskFile: path.join(ops.workspaceRoot, 'up.yaml'), cluster: 'b' });
    const pools = path.join(ops.workspaceRoot, 'pools.yaml');
    fs.writeFileSync(pools, `p:\n  hosts: ["${h.user}@${h.address}:${h.port}"]\n  identity_file: ${hosts.clientKeyPath}\n`);
    holderDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-fast-it-')), 'run');
    env = {
      ...process.env, SKYDECK_WORKSPACE: ops.workspaceRoot, SKYDECK_SSH_POOLS: pools, SKYDECK_KNOWN_HOSTS: knownHosts,
      SKYDECK_HOLDER_DIR: holderDir, SSH_AUTH_SOCK: '', SKYDECK_VERBOSE: '1',
    };
  });
  afterEach(async () => {
    await stopHolder().catch(() => undefined);
    for (const c of started.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  });
  after(async () => {
    if (ops) await down(ops, 'b', { graceSeconds: 0, purge: true }).catch(() => undefined);
    await ops?.dispose();
    await hosts?.stop();
    if (holderDir) fs.rmSync(path.dirname(holderDir), { recursive: true, force: true });
  });

  it('with no holder the thin CLI runs the full CLI (which starts one); the next run is the worker\'s, with the job\'s exit code', async () => {
    const cold = await runCli(['exec', 'b', 'echo cold']);
    assert.equal(cold.code, 0, cold.err);
    assert.equal(cold.out, 'cold\n');
    assert.match(cold.err, /fast path not used: .*(ENOENT|no such file)/i);
    await waitFor('the holder the first run started', answers);
    const failing = await waitFor('a run by a warm worker', async () => {
      const r = await runCli(['exec', 'b', task('fails', 'echo out; echo err >&2; exit 3')]);
      return WORKER.test(r.err) ? r : undefined;
    }, 30_000);
    const direct = await runCli(['exec', 'b', task('fails', 'echo out; echo err >&2; exit 3')], { SKYDECK_NO_HOLDER: '1' });
    assert.equal(failing.code, 3, failing.err);
    assert.equal(direct.code, 3, direct.err);
    // The job's log is one stream (stdout and stderr as they came), printed on stdout.
    assert.equal(failing.out, 'out\nerr\n');
    assert.equal(direct.out, failing.out);
    assert.match(failing.err, /FAILED \(exit code 3\)/);
  });

  it('two thin CLIs at once both run through workers, each job once', async () => {
    await warmHolder();
    // The second starts while the first runs (it waits for a mark the test makes after the
    // second ended), so no worker is free for it.
    const mark = path.join(os.tmpdir(), `skydeck-fast-mark-${process.pid}-${Date.now()}`);
    let second: Promise<Run> | undefined;
    const a = await runCli(['exec', 'b', `echo aaa; while [ ! -e ${mark} ]; do sleep 0.1; done; echo zzz`], {}, (out) => {
      if (!second && out.includes('aaa')) second = runCli(['exec', 'b', 'echo bbb']).finally(() => fs.writeFileSync(mark, ''));
    });
    fs.rmSync(mark, { force: true });
    assert.ok(second, a.err);
    const b = await second;
    assert.equal(a.out, 'aaa\nzzz\n', a.err);
    assert.equal(b.out, 'bbb\n', b.err);
    const pids = [a, b].map((r) => r.err.match(WORKER)?.[1]);
    assert.ok(pids.every(Boolean), `both by workers: ${a.err}\n${b.err}`);
    assert.notEqual(pids[0], pids[1], 'two runs at once are two workers');
  });

  it('kill -9 of the holder mid-run: the worker finishes the run (its job once), later runs start over', async () => {
    await warmHolder();
    const pid = holderPid();
    let killed = false;
    const r = await runCli(['exec', 'b', 'echo started; sleep 2; echo finished'], {}, (out) => {
      if (!killed && out.includes('started')) { killed = true; process.kill(pid, 'SIGKILL'); }
    });
    assert.ok(killed, r.err);
    assert.match(r.err, WORKER);
    if (r.code === 0) assert.equal(r.out, 'started\nfinished\n');
    else assert.match(r.err, /holder|connection/i);
    assert.equal((r.out.match(/started/g) ?? []).length, 1);
    const after = await runCli(['exec', 'b', 'echo again']);
    assert.equal(after.out, 'again\n', after.err);
  });

  it('kill -9 of the worker mid-run: the CLI says so and exits 1; it never runs the job again', async () => {
    await warmHolder();
    const before = await jobCount();
    let killed = false;
    const r = await runCli(['exec', 'b', 'echo started; sleep 2; echo finished'], {}, (out, _c, err) => {
      const pid = err.match(WORKER)?.[1];
      if (!killed && pid && out.includes('started')) { killed = true; process.kill(Number(pid), 'SIGKILL'); }
    });
    assert.ok(killed, r.err);
    assert.equal(r.code, 1);
    assert.match(r.err, /worker went away during the run; the job may or may not have been submitted/);
    assert.equal(r.out, 'started\n');
    assert.equal(await jobCount(), before + 1, 'one job, not run again by a fallback');
  });

  it('Ctrl-C during a fast-path run detaches as the full CLI does: the job keeps running', async () => {
    await warmHolder();
    const before = await jobCount();
    let sent = false;
    const r = await runCli(['exec', 'b', 'echo started; sleep 2; echo finished'], {}, (out, c) => {
      if (!sent && out.includes('started')) { sent = true; c.kill('SIGINT'); }
    });
    assert.match(r.err, WORKER);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /Detached; the job keeps running/);
    assert.equal(r.out, 'started\n');
    const rows = await ops.connections.client((await status(ops))[0].cluster).queueSnapshot();
    assert.equal(rows.length, before + 1);
    const job = rows.sort((x, y) => x.job_id - y.job_id).pop()!;
    assert.ok(['RUNNING', 'SUCCEEDED'].includes(job.status), job.status);
  });

  it('runs with the caller\'s environment and directory, not the holder\'s', async () => {
    await warmHolder();
    // Another workspace (an empty one) named by the caller's environment: no cluster b there.
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-fast-other-'));
    const viaWorker = await runCli(['exec', 'b', 'echo x'], { SKYDECK_WORKSPACE: other });
    const direct = await runCli(['exec', 'b', 'echo x'], { SKYDECK_WORKSPACE: other, SKYDECK_NO_HOLDER: '1' });
    assert.match(viaWorker.err, WORKER);
    assert.equal(viaWorker.code, direct.code);
    assert.notEqual(viaWorker.code, 0);
    assert.equal(viaWorker.out, '');
    assert.match(direct.err, /cluster/i);
    assert.ok(viaWorker.err.includes(direct.err.split('\n').find((l) => /cluster/i.test(l))!), viaWorker.err);
    // No SKYDECK_WORKSPACE: the workspace is the caller's directory (here: the test's workspace).
    const inCwd = await runCli(['exec', 'b', 'echo here'], { SKYDECK_WORKSPACE: '' }, undefined, ops.workspaceRoot);
    assert.equal(inCwd.out, 'here\n', inCwd.err);
    assert.match(inCwd.err, WORKER);
    fs.rmSync(other, { recursive: true, force: true });
  });

  it('a state file changed between two runs is read again (a cluster gone from it is gone)', async () => {
    await warmHolder();
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-fast-state-'));
    fs.cpSync(path.join(ops.workspaceRoot, '.skydeck'), path.join(ws, '.skydeck'), { recursive: true });
    const first = await runCli(['exec', 'b', 'echo one'], { SKYDECK_WORKSPACE: ws });
    assert.equal(first.out, 'one\n', first.err);
    assert.match(first.err, WORKER);
    // Another process replaces the state with one that has no clusters.
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-fast-empty-'));
    const st = await testOps({ root: empty });
    await st.dispose();
    fs.copyFileSync(path.join(empty, '.skydeck', 'state.db'), path.join(ws, '.skydeck', 'state.db'));
    const second = await runCli(['exec', 'b', 'echo two'], { SKYDECK_WORKSPACE: ws });
    assert.match(second.err, WORKER);
    assert.notEqual(second.code, 0);
    assert.equal(second.out, '');
    // And garbage in its place is reported, never taken for the earlier state.
    fs.writeFileSync(path.join(ws, '.skydeck', 'state.db'), 'not a database');
    const third = await runCli(['exec', 'b', 'echo three'], { SKYDECK_WORKSPACE: ws });
    assert.match(third.err, WORKER);
    assert.equal(third.out, '');
    assert.notEqual(third.code, 0);
    for (const d of [ws, empty]) fs.rmSync(d, { recursive: true, force: true });
  });

  it('a rebuilt CLI is not run by a worker of the old build', async () => {
    await warmHolder();
    const main = path.join(path.dirname(cli), 'cli-main.js');
    const t = new Date(Date.now() + 5000);
    fs.utimesSync(main, t, t);
    const r = await runCli(['exec', 'b', 'echo rebuilt']);
    assert.equal(r.out, 'rebuilt\n', r.err);
    assert.match(r.err, /fast path not used: the holder runs another build/);
    assert.doesNotMatch(r.err, WORKER);
  });
});
