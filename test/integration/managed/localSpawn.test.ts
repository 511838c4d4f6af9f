// `skydeck jobs launch` with no controller running: the bundled CLI really starts the detached
// background controller, which runs the job on a `local` cluster, tears it down, and exits by
// itself once idle (releasing its lease). The test ends that process by its pid if it lingers.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleWorker } from '../../support/bundleWorker';
import { cleanupBase } from '../../unit/agent/helpers';
import { ManagedStore, listJobs, openLocalClient } from '../../../src/core/managed';
import { isAlive } from '../../../src/core/state/atomicWrite';

const ROOT = path.resolve(__dirname, '../../..');

describe('jobs launch starts the local controller in the background', function () {
  this.timeout(120_000);
  let cli: string;
  let home: string;
  let ws: string;
  let pid: number | undefined;
  const env = () => ({ ...process.env, SKYDECK_CONTROLLER_HOME: home, SKYDECK_CONTROLLER_IDLE_S: '1', SKYDECK_CONTROLLER_POLL_MS: '200' });
  const runCli = (args: string[]) => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const c = spawn(process.execPath, [cli, ...args], { env: env(), cwd: ws });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('close', (code) => resolve({ code, out, err }));
  });
  const until = async (pred: () => Promise<boolean> | boolean, what: string) => {
    for (const end = Date.now() + 90_000; !(await pred()); await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; controller log:\n${fs.readFileSync(path.join(home, 'controller.log'), 'utf8')}`);
    }
  };

  before(async () => {
    cli = await bundleWorker(path.join(ROOT, 'src/cli/main.ts'));
    fs.cpSync(path.join(ROOT, 'agent'), path.join(path.dirname(cli), 'agent'), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(path.dirname(cli), 'sql-wasm.wasm'));
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mj-ws-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mj-home-'));
  });
  after(async () => {
    if (pid !== undefined && isAlive(pid)) process.kill(-pid, 'SIGKILL'); // its own group (detached)
    await cleanupBase(home);
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('spawns, holds the lease, runs the job to SUCCEEDED on local, exits when idle', async () => {
    fs.writeFileSync(path.join(ws, 't.yaml'), 'name: spawned\nresources: {cloud: local}\nrun: echo spawned-hello\n');
    const l = await runCli(['jobs', 'launch', 't.yaml', '-d', '-y']);
    assert.equal(l.code, 0, l.err);
    const m = /Controller on this machine: started it: pid (\d+),/.exec(l.err);
    assert.ok(m, l.err);
    pid = Number(m[1]);
    const storeFile = ManagedStore.fileIn(home);
    await until(() => fs.existsSync(`${storeFile}.controller`) || !isAlive(pid!), 'the lease');
    const status = async () => {
      const s = await ManagedStore.open(storeFile);
      try {
        return (await s.read((db) => listJobs(db))).jobs[0];
      } finally {
        s.close();
      }
    };
    await until(async () => (await status())?.status === 'SUCCEEDED' && (await status())?.clusterName === null, 'SUCCEEDED');
    const q = await runCli(['jobs', 'queue', '--all']);
    assert.match(q.out, /^1 +spawned +SUCCEEDED +0 +- /m);
    await until(() => !isAlive(pid!), 'the idle controller to exit');
    assert.equal(fs.existsSync(`${storeFile}.controller`), false, 'the lease is released');
    assert.match(fs.readFileSync(path.join(home, 'controller.log'), 'utf8'), /idle for 1 s with every job ended; exiting/);
  });

  it('the editor\'s way (core openLocalClient: the bundled CLI under ELECTRON_RUN_AS_NODE) starts it too; the ended job\'s output is kept', async () => {
    const home2 = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mj-home2-'));
    const client = await openLocalClient(home2, { execPath: process.execPath, args: [cli], env: { ELECTRON_RUN_AS_NODE: '1', SKYDECK_CONTROLLER_IDLE_S: '1', SKYDECK_CONTROLLER_POLL_MS: '200' } });
    let pid2: number | undefined;
    try {
      const { id, controller } = await client.submit({ tasks: ['name: editor\nresources: {cloud: local}\nrun: printf \'kept \\377\\n\'\n'] });
      const m = /^started it: pid (\d+),/.exec(controller.detail);
      assert.ok(controller.started && m, controller.detail);
      pid2 = Number(m[1]);
      await until(async () => { const j = await client.job(id); return j?.status === 'SUCCEEDED' && j.clusterName === null; }, 'SUCCEEDED');
      assert.deepEqual(await client.keptLog!(id), Buffer.from('kept \xff\n', 'latin1'));
      await until(() => !isAlive(pid2!), 'the idle controller to exit');
    } finally {
      await client.close();
      if (pid2 !== undefined && isAlive(pid2)) process.kill(-pid2, 'SIGKILL');
      await cleanupBase(home2);
    }
  });
});
