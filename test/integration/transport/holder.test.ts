// The connection holder against a real sshd, driven by the CLI as users run it (the bundle).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { utils as sshUtils } from 'ssh2';
import { startHosts, type TestHost, type TestHosts } from '../../hosts';
import { bundleWorker } from '../../support/bundleWorker';
import { down, launch } from '../../../src/core/ops';
import { testOps, waitFor, type TestOps } from '../ops/helpers';

const ROOT = path.resolve(__dirname, '../../..');
interface Run { code: number | null; out: string; err: string }

describe('transport/holder: CLI runs share one SSH connection through the holder', function () {
  this.timeout(120_000);
  let hosts: TestHosts;
  let h: TestHost;
  let ops: TestOps;
  let cli: string;
  let env: NodeJS.ProcessEnv;
  let holderDir: string;
  let dirs = 0;
  let knownHosts: string;
  const started: ChildProcess[] = [];

  const task = (name: string, run: string): string => {
    const f = path.join(ops.workspaceRoot, `${name}.yaml`);
    fs.writeFileSync(f, `run: ${JSON.stringify(run)}\n`);
    return f;
  };
  const runCli = (args: string[], extra: NodeJS.ProcessEnv = {}, onOut?: (s: string, c: ChildProcess) => void): Promise<Run> =>
    new Promise((resolve) => {
      const c = spawn(process.execPath, [cli, ...args], { env: { ...env, ...extra } });
      let out = '';
      let err = '';
      c.stdout.on('data', (d) => { out += d; onOut?.(out, c); });
      c.stderr.on('data', (d) => (err += d));
      c.on('close', (code) => resolve({ code, out, err }));
    });
  const accepted = (): number => (h.log().match(/Accepted publickey/g) ?? []).length;
  const sock = (): string => path.join(holderDir, 'holder.sock');
  const holderPid = (): number => Number(fs.readFileSync(path.join(holderDir, 'holder.pid'), 'utf8'));
  const answers = (): Promise<boolean> => new Promise((r) => {
    const c = net.connect(sock());
    c.once('connect', () => { c.destroy(); r(true); });
    c.once('error', () => r(false));
  });
  // The holder writes its pid file just after its socket answers: wait for both.
  const holderUp = async (): Promise<boolean> => fs.existsSync(path.join(holderDir, 'holder.pid')) && answers();
  const startHolderProcess = (): ChildProcess => {
    const c = spawn(process.execPath, [cli, '__holder'], { env, detached: true, stdio: 'ignore' });
    started.push(c);
    return c;
  };
  const stopHolder = async (): Promise<void> => {
    if (!fs.existsSync(path.join(holderDir, 'holder.pid'))) return;
    try { process.kill(holderPid(), 'SIGTERM'); } catch { /* gone */ }
    await waitFor('the holder to stop', async () => !fs.existsSync(sock()));
  };

  before(async () => {
    hosts = await startHosts(1);
    h = hosts.hosts[0];
    cli = await bundleWorker(path.join(ROOT, 'src/cli/main.ts'));
    fs.cpSync(path.join(ROOT, 'agent'), path.join(path.dirname(cli), 'agent'), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(path.dirname(cli), 'sql-wasm.wasm'));
    const pool = { name: 'p', hosts: [{ address: h.address, port: h.port, user: h.user, identityFile: hosts.clientKeyPath }] };
    const noSsh = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-holder-nossh-'));
    ops = await testOps({ pools: [pool], connections: { sshDefaults: { agent: false, sshDir: noSsh, userKnownHostsFiles: [] } } });
    knownHosts = path.join(ops.workspaceRoot, 'known_hosts');
    fs.writeFileSync(knownHosts, hosts.knownHostsLine(h) + '\n');
    fs.writeFileSync(path.join(ops.workspaceRoot, 'up.yaml'), 'resources: {cloud: ssh}\nrun: "true"\n');
    await launch(ops, { taskFile: path.join(ops.workspaceRoot, 'up.yaml'), cluster: 'b' });
    const pools = path.join(ops.workspaceRoot, 'pools.yaml');
    fs.writeFileSync(pools, `p:\n  hosts: ["${h.user}@${h.address}:${h.port}"]\n  identity_file: ${hosts.clientKeyPath}\n`);
    holderDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-holder-it-')), 'run');
    env = { ...process.env, SKYDECK_WORKSPACE: ops.workspaceRoot, SKYDECK_SSH_POOLS: pools, SKYDECK_KNOWN_HOSTS: knownHosts, SKYDECK_HOLDER_DIR: holderDir, SSH_AUTH_SOCK: '' };
  });
  afterEach(async () => {
    fs.writeFileSync(knownHosts, hosts.knownHostsLine(h) + '\n');
    await stopHolder().catch(() => undefined);
    for (const c of started.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
    // The next test gets a holder dir of its own: a CLI run of this one may have started a holder
    // that comes up only now (a run that lost its holder starts one, detached), and it must not
    // be taken for the next test's. Left alone, it leaves once its dir is removed (its watchdog).
    holderDir = path.join(path.dirname(holderDir), `run-${++dirs}`);
    env.SKYDECK_HOLDER_DIR = holderDir;
  });
  after(async () => {
    if (ops) await down(ops, 'b', { graceSeconds: 0, purge: true }).catch(() => undefined);
    await ops?.dispose();
    await hosts?.stop();
    if (holderDir) fs.rmSync(path.dirname(holderDir), { recursive: true, force: true });
  });

  it('a first run with no holder connects directly and starts one; later runs reuse its one connection', async () => {
    const cold = await runCli(['exec', 'b', task('one', 'echo one')]);
    assert.equal(cold.code, 0, cold.err);
    assert.equal(cold.out, 'one\n');
    await waitFor('the holder the first run started', answers);
    const before = accepted();
    for (const word of ['two', 'three']) {
      const r = await runCli(['exec', 'b', task(word, `echo ${word}`)]);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, `${word}\n`);
    }
    assert.equal(accepted() - before, 1, 'two CLI runs through the holder: one SSH authentication (the holder\'s)');
    assert.equal(fs.lstatSync(sock()).mode & 0o777, 0o600);
  });

  it('kill -9 of the holder mid-exec: the CLI goes on directly or fails saying so, it does not hang', async () => {
    startHolderProcess();
    await waitFor('the holder and its pid file', holderUp);
    const pid = holderPid();
    let killed = false;
    const r = await runCli(['exec', 'b', task('slow', 'echo started; sleep 3; echo finished')], {}, (out) => {
      if (!killed && out.includes('started')) { killed = true; process.kill(pid, 'SIGKILL'); }
    });
    assert.ok(killed, `the job never started: ${r.err}`);
    if (r.code === 0) assert.match(r.out, /started\nfinished\n/);
    else assert.match(r.err, /holder|connection/i);
  });

  it('two holders started at once end as exactly one', async () => {
    const a = startHolderProcess();
    const b = startHolderProcess();
    const exited = await waitFor('one of two racing holders to leave', async () => {
      const gone = [a, b].filter((c) => c.exitCode !== null);
      return gone.length ? gone : undefined;
    });
    // Past the survivor's socket watchdog (500 ms): still exactly one, and it answers.
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal([a, b].filter((c) => c.exitCode === null).length, 1, `exited: ${exited.map((c) => c.pid).join(',')}`);
    assert.ok(await answers());
    const r = await runCli(['exec', 'b', task('race', 'echo raced')]);
    assert.equal(r.out, 'raced\n', r.err);
  });

  it('a changed host key is refused through the holder exactly as directly', async () => {
    startHolderProcess();
    await waitFor('the holder', answers);
    const warm = await runCli(['exec', 'b', task('warm', 'echo warm')]);
    assert.equal(warm.out, 'warm\n', warm.err);
    // The holder holds a connection verified earlier; the caller's store now expects another key.
    const other = sshUtils.generateKeyPairSync('ed25519').public.split(' ').slice(0, 2).join(' ');
    fs.writeFileSync(knownHosts, `[${h.address}]:${h.port} ${other}\n`);
    const via = await runCli(['exec', 'b', task('evil', 'echo ran')]);
    const direct = await runCli(['exec', 'b', task('evil', 'echo ran')], { SKYDECK_NO_HOLDER: '1' });
    for (const r of [via, direct]) {
      assert.notEqual(r.code, 0);
      assert.equal(r.out, '');
      assert.match(r.err, /Host key for .* has CHANGED, refusing to connect/);
    }
    assert.ok(await answers(), 'the holder is still there');
  });
});
