// Issue 13.1: a repository can ship .skydeck/state.db and .skydeck/local/<name>/. Running the
// CLI in it must never run code from those files. Driven through the bundled CLI, as users run it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleWorker } from '../../support/bundleWorker';
import { plantRow } from '../../support/plantRow';
import { StateStore, machineId } from '../../../src/core/state';
import { agentHash } from '../../../src/core/jobs/agentBundle';

const ROOT = path.resolve(__dirname, '../../..');

function runCli(cli: string, ws: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [cli, ...args], { env: { ...process.env, SKYDECK_WORKSPACE: ws }, cwd: ws });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('close', (code) => resolve({ code, out, err }));
  });
}

/** The planted agent: if it ever runs, it leaves a marker file. */
function evilAgent(marker: string): string {
  return `import sys\nopen(${JSON.stringify(marker)}, "w").write("ran")\nsys.exit(0)\n`;
}

async function plant(ws: string, over: Record<string, string | number | null>, layout: 'dir' | 'symlink'): Promise<{ marker: string; base: string }> {
  const base = path.join(ws, '.skydeck', 'local', 'evil');
  const marker = path.join(ws, 'PWNED');
  const hash = agentHash(path.join(ROOT, 'agent'));
  const dir = layout === 'dir' ? path.join(base, 'agent') : path.join(base, `agent-${hash}`);
  fs.mkdirSync(path.join(dir, 'skydeck_agent_lib', '__pycache__'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.hash'), `${hash}\n`);
  fs.writeFileSync(path.join(dir, 'skydeck_agent.py'), evilAgent(marker));
  fs.writeFileSync(path.join(dir, 'skydeck_agent_lib', '__pycache__', 'serve.cpython-311.pyc'), 'planted');
  if (layout === 'symlink') fs.symlinkSync(`agent-${hash}`, path.join(base, 'agent'));
  const store = await StateStore.openWorkspace(ws);
  await plantRow(store, { handle: JSON.stringify({ hosts: [], base, workdir: path.join(base, 'sky_workdir'), local: true }), ...over });
  store.close();
  return { marker, base };
}

describe('planted workspace state and the CLI (issue 13.1)', function () {
  this.timeout(120_000);
  let cli: string;
  const cleanups: string[] = [];
  before(async () => {
    cli = await bundleWorker(path.join(ROOT, 'src/cli/main.ts'));
    fs.cpSync(path.join(ROOT, 'agent'), path.join(path.dirname(cli), 'agent'), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(path.dirname(cli), 'sql-wasm.wasm'));
  });
  after(async () => {
    for (const ws of cleanups) await runCli(cli, ws, ['down', 'evil', '-y', '--grace', '0']);
  });

  for (const layout of ['dir', 'symlink'] as const) {
    it(`issue 13.1: "queue evil" on a planted UP local row (${layout} layout, fake .hash, own skydeck_agent.py) runs nothing and says why`, async () => {
      const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-planted-'));
      const { marker } = await plant(ws, {}, layout);
      const r = await runCli(cli, ws, ['queue', 'evil']);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, /Skydeck does not connect to cluster evil: it records no creator/);
      assert.ok(!fs.existsSync(marker), 'the planted agent never ran');
      const s = await runCli(cli, ws, ['status']);
      assert.equal(s.code, 0, s.err);
      assert.match(s.err, /evil: not launched from this machine: .*does not check or act on it by itself/);
      assert.ok(!fs.existsSync(marker));
    });
  }

  it('issue 13.1: even a row this machine wrote never trusts a .hash file: the shipped agent replaces the planted one', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-planted-'));
    cleanups.push(ws);
    const { marker, base } = await plant(ws, { created_by_user: 'me', created_by_machine: machineId() }, 'symlink');
    const r = await runCli(cli, ws, ['queue', 'evil']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Job queue of evil/);
    assert.ok(!fs.existsSync(marker), 'the planted agent never ran');
    const installed = fs.readFileSync(path.join(base, 'agent', 'skydeck_agent.py'), 'utf8');
    assert.equal(installed, fs.readFileSync(path.join(ROOT, 'agent', 'skydeck_agent.py'), 'utf8'));
  });

  it('issue 13.1: a row whose base is not the derived directory, or whose uid or name is malformed, is refused by every command', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-planted-'));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-outside-'));
    const marker = path.join(outside, 'PWNED');
    const store = await StateStore.openWorkspace(ws);
    await plantRow(store, { name: 'evil', created_by_machine: machineId(), handle: JSON.stringify({ hosts: [], base: outside, workdir: '', local: true }) });
    await plantRow(store, { name: 'star', uid: '*', provider: 'aws', region: 'us-east-1', flags: 'terminating' });
    await plantRow(store, { name: 'bad\nProxyCommand sh', provider: 'ssh', region: 'p' });
    store.close();
    for (const args of [['queue', 'evil'], ['logs', 'evil', '--no-follow'], ['cancel', 'evil', '--all'], ['exec', 'evil', 'x.yaml'], ['down', 'star', '-y']]) {
      const r = await runCli(cli, ws, args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, /is not one Skydeck wrote \(.*\); it is ignored and nothing is done with it/, args.join(' '));
    }
    const s = await runCli(cli, ws, ['status']);
    assert.equal(s.code, 0, s.err);
    assert.match(s.err, /cluster "evil" is not one Skydeck wrote \(handle: base ".*" is not the directory Skydeck uses for evil/);
    assert.match(s.err, /cluster "star" is not one Skydeck wrote \(uid "\*" is not a Skydeck cluster uid\)/);
    assert.match(s.err, /cluster "bad\\nProxyCommand sh" is not one Skydeck wrote/);
    assert.doesNotMatch(s.err, /bad\nProxyCommand/, 'the planted name is printed escaped');
    assert.ok(!fs.existsSync(marker));
  });

  it('a new local cluster never picks up files already in its directory (a planted jobs.db or agent): they are removed first', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-planted-'));
    const base = path.join(ws, '.skydeck', 'local', 'fresh');
    const marker = path.join(ws, 'PWNED');
    fs.mkdirSync(path.join(base, 'agent'), { recursive: true });
    fs.writeFileSync(path.join(base, 'jobs.db'), 'planted queue');
    fs.writeFileSync(path.join(base, 'agent', 'skydeck_agent.py'), evilAgent(marker));
    fs.writeFileSync(path.join(ws, 't.yaml'), 'resources:\n  cloud: local\nrun: echo mine\n');
    cleanups.push(ws);
    const r = await runCli(cli, ws, ['launch', 't.yaml', '-c', 'fresh']);
    await runCli(cli, ws, ['down', 'fresh', '-y', '--grace', '0']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err + r.out, /Removed files no cluster row owned from .*fresh/);
    assert.match(r.out, /mine/);
    assert.ok(!fs.existsSync(marker), 'the planted agent never ran');
  });

  it('a symlinked .skydeck/local is refused by launch and by down: nothing is written or deleted where it points', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-planted-'));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-outside-'));
    fs.mkdirSync(path.join(outside, 'victim'));
    fs.writeFileSync(path.join(outside, 'victim', 'keep.txt'), 'precious');
    fs.mkdirSync(path.join(ws, '.skydeck'), { recursive: true });
    fs.symlinkSync(outside, path.join(ws, '.skydeck', 'local'));
    fs.writeFileSync(path.join(ws, 't.yaml'), 'resources:\n  cloud: local\nrun: echo mine\n');
    const launch = await runCli(cli, ws, ['launch', 't.yaml', '-c', 'victim']);
    assert.equal(launch.code, 2, launch.err); // a usage error: the fix is the user's
    assert.match(launch.err, /cannot launch victim on this machine: .*local is a symbolic link/);
    // A row this machine wrote, with the derived base: down must still not follow the link.
    const store = await StateStore.openWorkspace(ws);
    const base = path.join(ws, '.skydeck', 'local', 'victim');
    await plantRow(store, { name: 'victim', created_by_user: 'me', created_by_machine: machineId(), handle: JSON.stringify({ hosts: [], base, workdir: path.join(base, 'sky_workdir'), local: true }) });
    store.close();
    const down = await runCli(cli, ws, ['down', 'victim', '-y', '--grace', '0']);
    assert.equal(down.code, 1, down.err);
    assert.match(down.err, /is a symbolic link/);
    assert.equal(fs.readFileSync(path.join(outside, 'victim', 'keep.txt'), 'utf8'), 'precious');
    assert.deepEqual(fs.readdirSync(path.join(outside, 'victim')), ['keep.txt']);
  });
});
