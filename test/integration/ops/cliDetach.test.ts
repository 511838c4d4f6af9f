import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleWorker } from '../../support/bundleWorker';

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

describe('the skydeck CLI on the local cloud', function () {
  this.timeout(90_000);
  let cli: string;
  let ws: string;
  before(async () => {
    // The CLI as users run it: one bundled file (the agent is found beside it in dist/).
    cli = await bundleWorker(path.join(ROOT, 'src/cli/main.ts'));
    fs.cpSync(path.join(ROOT, 'agent'), path.join(path.dirname(cli), 'agent'), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(path.dirname(cli), 'sql-wasm.wasm'));
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-cli-e2e-'));
  });
  after(async () => {
    await runCli(cli, ws, ['down', 'c', '-y', '--grace', '0']);
  });

  it('Ctrl-C while streaming detaches and leaves the job running', async () => {
    fs.writeFileSync(path.join(ws, 'long.yaml'), 'resources: {cloud: local}\nrun: |\n  echo started\n  sleep 60\n');
    const child = spawn(process.execPath, [cli, 'launch', 'long.yaml', '-c', 'c'], { env: { ...process.env, SKYDECK_WORKSPACE: ws }, cwd: ws });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    await new Promise<void>((resolve) => child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('started')) resolve();
    }));
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('close', r));
    assert.equal(code, 0, err);
    assert.match(err, /Detached; the job keeps running\. Follow it again with: skydeck logs c/);
    const q = await runCli(cli, ws, ['queue', 'c']);
    assert.equal(q.code, 0, q.err);
    assert.match(q.out, /^1 .*RUNNING$/m);
  });

  it('queue, logs --no-follow, cancel and status print what a user expects', async () => {
    const logs = await runCli(cli, ws, ['logs', 'c', '1', '--no-follow']);
    assert.equal(logs.out, 'started\n');
    const cancel = await runCli(cli, ws, ['cancel', 'c', '1', '--grace', '1']);
    assert.equal(cancel.code, 0, cancel.err);
    assert.match(cancel.out, /Cancelled job\(s\) 1 on c\./);
    const status = await runCli(cli, ws, ['status']);
    assert.match(status.out, /^NAME +LAUNCHED +CLOUD +REGION +NODES +STATUS +AUTOSTOP +\$\/H +SPEND +JOBS$/m);
    assert.match(status.out, /^c +\S+ ago +local +- +1 +UP/m);
    const bad = await runCli(cli, ws, ['cancel', 'c', '99']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /no such job: 99/);
  });
});
