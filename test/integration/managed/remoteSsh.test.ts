// The managed-jobs controller on an ssh pool host (a real sshd test host): the CLI on "this
// machine" launches the controller cluster through ops launch, uploads its bundle, and every
// jobs command runs the node's CLI over the cluster's connection. Jobs run on `local` clusters
// of the controller node itself (no credentials leave this machine).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHosts, type TestHosts, type TestHost } from '../../hosts';
import { cliBundle, controllerClusterName } from '../../../src/core/managed';
import { cliBundleCopy, queueRow, runCli, until, type CliRun } from './remoteCli';

describe('jobs with the controller on an ssh pool host', function () {
  this.timeout(900_000);
  let env: TestHosts;
  let h: TestHost;
  let cli: string;
  let home: string;
  let ws: string;
  let vars: NodeJS.ProcessEnv;
  const jobs = (args: string[], entry = cli): Promise<CliRun> => runCli(entry, ['jobs', ...args], vars, ws);
  const ctlLog = async () => (await h.exec('cat ~/.skydeck/jobs-controller/home/controller.log 2>&1')).stdout;
  const statusOf = async (id: number) => queueRow((await jobs(['queue', '--all'])).out, id);
  const waitStatus = (id: number, want: RegExp, cluster?: RegExp) =>
    until(`job ${id} ${want}`, async () => {
      const r = await statusOf(id);
      return !!r && want.test(r[2]) && (!cluster || cluster.test(r[4])) && r;
    }, 600_000, ctlLog);
  const controllerPid = async () => Number((await h.exec(`sed -n 's/.*"pid":\\([0-9]*\\).*/\\1/p' ~/.skydeck/jobs-controller/home/.skydeck/managed.db.controller 2>/dev/null`)).stdout.trim() || NaN);

  before(async () => {
    env = await startHosts(1);
    h = env.hosts[0];
    cli = await cliBundleCopy();
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mj-ws-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mj-home-'));
    const pools = path.join(ws, 'pools.yaml');
    fs.writeFileSync(pools, `lab:\n  hosts: ["${h.user}@${h.address}:${h.port}"]\n  identity_file: ${env.clientKeyPath}\n`);
    fs.writeFileSync(path.join(ws, 'known_hosts'), `${env.knownHostsLine(h)}\n`);
    vars = {
      ...process.env, SSH_AUTH_SOCK: '', SKYDECK_JOBS_CONTROLLER: 'ssh:lab', SKYDECK_SSH_POOLS: pools,
      SKYDECK_KNOWN_HOSTS: path.join(ws, 'known_hosts'), SKYDECK_CONTROLLER_HOME: home,
      SKYDECK_CONTROLLER_POLL_MS: '200', SKYDECK_CONTROLLER_IDLE_S: '600', SKYDECK_CONFIG: path.join(ws, 'no-config.yaml'),
    };
  });
  after(async () => {
    await env?.stop(); // every process of the host's user (the controller, agents, jobs) ends with it
    for (const d of [ws, home]) if (d) fs.rmSync(d, { recursive: true, force: true });
    if (cli) fs.rmSync(path.dirname(cli), { recursive: true, force: true });
  });

  it('provisions the controller cluster, uploads the bundle, runs a job to SUCCEEDED', async () => {
    fs.writeFileSync(path.join(ws, 'ok.yaml'), 'name: remote-ok\nresources: {cloud: local}\nrun: |\n  sleep 4\n  echo "hi from $(hostname) $SECRET_X" | sed s/sekrit/masked/\n');
    const l = await jobs(['launch', 'ok.yaml', '-y', '--env', 'SECRET_X=sekrit']);
    assert.equal(l.code, 0, l.err);
    assert.match(l.err, /Launching the managed-jobs controller cluster skydeck-jobs-[0-9a-f]{8}/);
    assert.match(l.err, /Uploading Skydeck's CLI bundle [0-9a-f]{16}/);
    assert.match(l.err, /Controller on controller cluster skydeck-jobs-[0-9a-f]{8}: ssh /);
    assert.match(l.out, /hi from .* masked/);
    assert.match(l.err, /✓ Managed job 1 SUCCEEDED/);
    // The bundle sits in its content-hash directory; the store is on the node, not here.
    const hash = cliBundle(cli).hash;
    assert.match((await h.exec('ls ~/.skydeck/jobs-controller/bundles')).stdout, new RegExp(`^${hash}$`, 'm'));
    assert.equal((await h.exec('test -f ~/.skydeck/jobs-controller/home/.skydeck/managed.db && echo yes')).stdout.trim(), 'yes');
    assert.equal(fs.existsSync(path.join(home, '.skydeck', 'managed.db')), false);
    // The env value reached the node's store but never a command line or the controller's log.
    assert.doesNotMatch(await ctlLog(), /sekrit/);
    // The controller cluster is an ordinary row of the controller workspace.
    const st = await runCli(cli, ['status'], { ...vars, SKYDECK_WORKSPACE: home }, ws);
    const name = st.out.split('\n').find((x) => x.startsWith('skydeck-jobs-'))?.split(/\s+/)[0];
    assert.ok(name && /^skydeck-jobs-[0-9a-f]{8}$/.test(name), st.out);
    assert.match(st.out, /skydeck-jobs-\S+ .* ssh .* UP/);
    const q = await jobs(['queue', '--all']);
    assert.deepEqual(queueRow(q.out, 1)?.slice(0, 5), ['1', 'remote-ok', 'SUCCEEDED', '0', '-']);
  });

  it('a job\'s workdir and local file mount are copied to the controller: it runs them as submitted, and the copies go when it ends', async () => {
    // This machine's folder is 0700 root's: the node's user could not read it, only a copy.
    const proj = path.join(ws, 'proj');
    fs.mkdirSync(path.join(proj, 'data'), { recursive: true });
    fs.writeFileSync(path.join(proj, 'marker.txt'), 'v1\n');
    fs.writeFileSync(path.join(proj, 'data', 'd.txt'), 'data v1\n');
    fs.writeFileSync(path.join(proj, '.skyignore'), 'secret.txt\n');
    fs.writeFileSync(path.join(proj, 'secret.txt'), 'not for the node\n');
    // Relative paths are taken from the folder the command runs in (ws), as sky does.
    fs.writeFileSync(path.join(ws, 'files.yaml'), [
      'name: remote-files', 'resources: {cloud: local}', 'workdir: ./proj', 'file_mounts:', '  ~/mj-data: ./proj/data',
      'run: |', '  while [ ! -e "$HOME/files-go" ]; do sleep 0.2; done', '  cat marker.txt ~/mj-data/d.txt', '  ls', '',
    ].join('\n'));
    const l = await jobs(['launch', 'files.yaml', '-y', '-d']);
    assert.equal(l.code, 0, l.err);
    assert.ok(l.err.includes(`workdir ${proj} → ~/sky_workdir`), l.err);
    const id = Number(l.out.trim());
    // Edited after the submit: the job still runs what was submitted.
    fs.writeFileSync(path.join(proj, 'marker.txt'), 'v2\n');
    fs.writeFileSync(path.join(proj, 'data', 'd.txt'), 'data v2\n');
    const uploads = '~/.skydeck/jobs-controller/home/.skydeck/managed/uploads';
    assert.match((await h.exec(`ls ${uploads}`)).stdout, /^[0-9a-f]{32}\n$/, 'one copy, named by a token');
    await waitStatus(id, /^RUNNING$/);
    await h.exec('touch "$HOME/files-go"');
    await waitStatus(id, /^SUCCEEDED$/, /^-$/);
    const logs = await jobs(['logs', String(id)]);
    assert.match(logs.out, /v1\ndata v1\ndata\nmarker\.txt\n/, logs.out);
    assert.doesNotMatch(logs.out, /secret\.txt|v2/, 'the workdir went as a launch sends one (.skyignore kept out)');
    await until('the copies to be removed', async () => (await h.exec(`ls -A ${uploads}`)).stdout.trim() === '', 60_000, ctlLog);
    // A path that is not there stops the launch before anything is sent or recorded.
    fs.writeFileSync(path.join(ws, 'missing.yaml'), 'resources: {cloud: local}\nworkdir: ./nope\nrun: ls\n');
    const bad = await jobs(['launch', 'missing.yaml', '-y', '-d']);
    assert.equal(bad.code, 2, bad.err);
    assert.ok(bad.err.includes(`workdir ${path.join(ws, 'nope')} does not exist on this machine`), bad.err);
    assert.equal(queueRow((await jobs(['queue', '--all'])).out, id + 1), undefined, 'nothing recorded');
    assert.equal((await h.exec(`ls -A ${uploads}`)).stdout.trim(), '');
  });

  it('cancels a RUNNING job through the remote client: its cluster is torn down', async () => {
    fs.writeFileSync(path.join(ws, 'long.yaml'), 'name: remote-long\nresources: {cloud: local}\nrun: sleep 600\n');
    const l = await jobs(['launch', 'long.yaml', '-y', '-d']);
    assert.equal(l.code, 0, l.err);
    const id = Number(l.out.trim());
    await waitStatus(id, /^RUNNING$/);
    const c = await jobs(['cancel', String(id)]);
    assert.equal(c.code, 0, c.err);
    assert.match(c.out, new RegExp(`Cancelling managed job\\(s\\) ${id}`));
    await waitStatus(id, /^CANCELLED$/, /^-$/);
    const unknown = await jobs(['cancel', '999']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /Not cancelled \(unknown or already ended\): 999/);
  });

  it('a controller killed -9 mid-job is restarted by the next jobs command; the job runs once', async () => {
    // The job runs until the test lets it end (once a new controller serves), not for a fixed
    // minute: it is surely still running across the restart, and the test waits no longer.
    fs.writeFileSync(path.join(ws, 'once.yaml'), 'name: remote-once\nresources: {cloud: local}\nrun: |\n  echo started >> "$HOME/once-runs"\n  while [ ! -e "$HOME/once-go" ]; do sleep 0.2; done\n  echo finished\n');
    const l = await jobs(['launch', 'once.yaml', '-y', '-d']);
    const id = Number(l.out.trim());
    await waitStatus(id, /^RUNNING$/);
    const pid = await controllerPid();
    assert.ok(pid > 0, 'the lease names the controller');
    await h.exec(`kill -9 ${pid}`);
    await until('the controller to die', async () => (await h.exec(`kill -0 ${pid} 2>/dev/null || echo gone`)).stdout.includes('gone'));
    // The queue call itself starts a new controller, which finds the job still running.
    await waitStatus(id, /^RUNNING$/);
    await until('a new controller', async () => { await statusOf(id); const p = await controllerPid(); return p > 0 && p !== pid; });
    await h.exec('touch "$HOME/once-go"');
    await waitStatus(id, /^SUCCEEDED$/, /^-$/);
    const again = await controllerPid();
    assert.ok(again > 0 && again !== pid, `a new controller serves (was ${pid}, now ${again})`);
    assert.equal((await h.exec('cat "$HOME/once-runs"')).stdout, 'started\n', 'the job ran exactly once');
  });

  it('a new bundle version is uploaded to its own directory and used', async () => {
    const v2dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mj-bundle2-'));
    for (const p of ['agent', 'sql-wasm.wasm']) fs.cpSync(path.join(path.dirname(cli), p), path.join(v2dir, p), { recursive: true });
    fs.writeFileSync(path.join(v2dir, 'cli.js'), `${fs.readFileSync(cli, 'utf8')}\n// version 2\n`);
    const v2 = path.join(v2dir, 'cli.js');
    try {
      const q = await jobs(['queue', '--all'], v2);
      assert.equal(q.code, 0, q.err);
      assert.match(q.err, new RegExp(`Uploading Skydeck's CLI bundle ${cliBundle(v2).hash}`));
      assert.equal(queueRow(q.out, 1)?.[2], 'SUCCEEDED');
      const dirs = (await h.exec('ls ~/.skydeck/jobs-controller/bundles')).stdout.trim().split('\n').sort();
      assert.deepEqual(dirs, [cliBundle(cli).hash, cliBundle(v2).hash].sort());
      const again = await jobs(['queue'], v2);
      assert.doesNotMatch(again.err, /Uploading/);
      // The old bundle's controller is still serving: a submit of v2 has it hand over to v2.
      const old = await controllerPid();
      assert.match((await h.exec(`tr '\\0' ' ' < /proc/${old}/cmdline`)).stdout, new RegExp(`bundles/${cliBundle(cli).hash}/cli\\.js jobs controller-run`));
      fs.writeFileSync(path.join(ws, 'v2.yaml'), 'name: remote-v2\nresources: {cloud: local}\nrun: echo v2\n');
      const l = await jobs(['launch', 'v2.yaml', '-y', '-d'], v2);
      assert.equal(l.code, 0, l.err);
      assert.match(l.err, /asked to hand over to this version/);
      const id = Number(l.out.trim());
      await until(`job ${id} SUCCEEDED under v2`, async () => queueRow((await jobs(['queue', '--all'], v2)).out, id)?.[2] === 'SUCCEEDED', 600_000, ctlLog);
      // The old controller may run the short job itself before it sees the request, and the
      // lease is free for a moment between its release and v2's take: wait for v2 to hold it.
      const v2run = new RegExp(`bundles/${cliBundle(v2).hash}/cli\\.js jobs controller-run`);
      const cmdline = async (pid: number) => (await h.exec(`tr '\\0' ' ' < /proc/${pid}/cmdline 2>/dev/null`)).stdout;
      await until('the v2 controller holds the lease', async () => v2run.test(await cmdline(await controllerPid())), 30_000, ctlLog);
      assert.equal(await cmdline(old), '', `the old controller (pid ${old}) still runs`);
      assert.match(await ctlLog(), /handed over to \S+\/bundles\/[0-9a-f]{16}\/cli\.js/);
    } finally {
      fs.rmSync(v2dir, { recursive: true, force: true });
    }
  });

  it('names the controller cluster per user, machine and place', () => {
    const a = controllerClusterName({ kind: 'ssh', pool: 'lab' }, { user: 'u', machine: 'm' });
    assert.notEqual(a, controllerClusterName({ kind: 'ssh', pool: 'lab2' }, { user: 'u', machine: 'm' }));
    assert.notEqual(a, controllerClusterName({ kind: 'local-cluster' }, { user: 'u', machine: 'm' }));
    assert.match(a, /^skydeck-jobs-[0-9a-f]{8}$/);
  });
});
