// Shared set-up of the thin CLI's fast-path suites (holderFastPath*.test.ts): a real sshd with
// an UP cluster `b`, the CLI built as users get it (cli.js thin + cli-main.js), a private holder
// directory, and helpers to run the CLI and the holder. Call inside a describe().
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { startHosts, type TestHosts } from '../../hosts';
import { down, launch, status } from '../../../src/core/ops';
import { testOps, waitFor, type TestOps } from '../ops/helpers';

const ROOT = path.resolve(__dirname, '../../..');
export interface Run { code: number | null; out: string; err: string }
/** What the thin CLI says (SKYDECK_VERBOSE=1) when a worker took the run. */
export const WORKER = /run by the connection holder's worker \(pid (\d+)\)/;

/**
 * cli.js (thin) and cli-main.js (the CLI) side by side, with the agent and sql.js's WASM. Built
 * once per mocha process (two bundles: seconds of CPU), shared by the files that use it.
 */
let builtCli: Promise<string> | undefined;
function buildCli(): Promise<string> {
  builtCli ??= buildCliNow();
  builtCli.catch(() => (builtCli = undefined));
  return builtCli;
}

async function buildCliNow(): Promise<string> {
  const dir = path.join(ROOT, 'out', 'test-thin');
  const common = { bundle: true, platform: 'node' as const, format: 'cjs' as const, logLevel: 'error' as const, external: ['vscode', 'cpu-features', '*.node'] };
  await build({ ...common, entryPoints: [path.join(ROOT, 'src/cli/thin.ts')], outfile: path.join(dir, 'cli.js') });
  await build({ ...common, entryPoints: [path.join(ROOT, 'src/cli/main.ts')], outfile: path.join(dir, 'cli-main.js') });
  fs.cpSync(path.join(ROOT, 'agent'), path.join(dir, 'agent'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(dir, 'sql-wasm.wasm'));
  return path.join(dir, 'cli.js');
}

export function fastPathHarness() {
  let hosts: TestHosts;
  const started: ChildProcess[] = [];
  const f = {
    ops: undefined as unknown as TestOps,
    cli: '',
    env: {} as NodeJS.ProcessEnv,
    holderDir: '',
    /** The node's login user (a local account: its processes are this machine's). */
    hostUser: '',
    task(name: string, run: string): string {
      const file = path.join(f.ops.workspaceRoot, `${name}.yaml`);
      fs.writeFileSync(file, `run: ${JSON.stringify(run)}\n`);
      return file;
    },
    runCli(args: string[], extra: NodeJS.ProcessEnv = {}, onOut?: (s: string, c: ChildProcess, err: string) => void, cwd?: string): Promise<Run> {
      return new Promise((resolve) => {
        const c = spawn(process.execPath, [f.cli, ...args], { env: { ...f.env, ...extra }, ...(cwd ? { cwd } : {}) });
        let out = '';
        let err = '';
        c.stdout.on('data', (d) => { out += d; onOut?.(out, c, err); });
        c.stderr.on('data', (d) => (err += d));
        c.on('close', (code) => resolve({ code, out, err }));
      });
    },
    sock: (): string => path.join(f.holderDir, 'holder.sock'),
    holderPid: (): number => Number(fs.readFileSync(path.join(f.holderDir, 'holder.pid'), 'utf8')),
    answers: (): Promise<boolean> => new Promise((r) => {
      const c = net.connect(f.sock());
      c.once('connect', () => { c.destroy(); r(true); });
      c.once('error', () => r(false));
    }),
    /** A holder of this build, and a run through its worker (the worker warms up meanwhile). */
    async warmHolder(): Promise<void> {
      const c = spawn(process.execPath, [path.join(path.dirname(f.cli), 'cli-main.js'), '__holder'], { env: f.env, detached: true, stdio: 'ignore' });
      started.push(c);
      // Its pid file comes just after its socket answers; the kill -9 tests read it.
      await waitFor('the holder and its pid file', async () => fs.existsSync(path.join(f.holderDir, 'holder.pid')) && f.answers());
      const r = await f.runCli(['exec', 'b', 'echo warm']);
      assert.equal(r.out, 'warm\n', `the warm-up run: ${JSON.stringify(r)}`);
      assert.match(r.err, WORKER, 'the run after the holder started is the worker\'s');
    },
    /** How many jobs the node has ever had (each exec adds exactly one). */
    jobCount: async (): Promise<number> => (await f.ops.connections.client((await status(f.ops))[0].cluster).queueSnapshot()).length,
  };
  const stopHolder = async (): Promise<void> => {
    if (!fs.existsSync(path.join(f.holderDir, 'holder.pid'))) return;
    try { process.kill(f.holderPid(), 'SIGTERM'); } catch { /* gone */ }
    await waitFor('the holder to stop', async () => !fs.existsSync(f.sock()));
  };

  before(async () => {
    hosts = await startHosts(1);
    const h = hosts.hosts[0];
    f.hostUser = h.user;
    f.cli = await buildCli();
    const pool = { name: 'p', hosts: [{ address: h.address, port: h.port, user: h.user, identityFile: hosts.clientKeyPath }] };
    const noSsh = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-fast-nossh-'));
    f.ops = await testOps({ pools: [pool], connections: { sshDefaults: { agent: false, sshDir: noSsh, userKnownHostsFiles: [] } } });
    const knownHosts = path.join(f.ops.workspaceRoot, 'known_hosts');
    fs.writeFileSync(knownHosts, hosts.knownHostsLine(h) + '\n');
    fs.writeFileSync(path.join(f.ops.workspaceRoot, 'up.yaml'), 'resources: {cloud: ssh}\nrun: "true"\n');
    await launch(f.ops, { taskFile: path.join(f.ops.workspaceRoot, 'up.yaml'), cluster: 'b' });
    const pools = path.join(f.ops.workspaceRoot, 'pools.yaml');
    fs.writeFileSync(pools, `p:\n  hosts: ["${h.user}@${h.address}:${h.port}"]\n  identity_file: ${hosts.clientKeyPath}\n`);
    f.holderDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-fast-it-')), 'run');
    f.env = {
      ...process.env, SKYDECK_WORKSPACE: f.ops.workspaceRoot, SKYDECK_SSH_POOLS: pools, SKYDECK_KNOWN_HOSTS: knownHosts,
      SKYDECK_HOLDER_DIR: f.holderDir, SSH_AUTH_SOCK: '', SKYDECK_VERBOSE: '1',
    };
  });
  afterEach(async () => {
    await stopHolder().catch(() => undefined);
    for (const c of started.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  });
  after(async () => {
    if (f.ops) await down(f.ops, 'b', { graceSeconds: 0, purge: true }).catch(() => undefined);
    await f.ops?.dispose();
    await hosts?.stop();
    if (f.holderDir) fs.rmSync(path.dirname(f.holderDir), { recursive: true, force: true });
  });
  return f;
}
