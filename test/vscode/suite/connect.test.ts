// Open SSH Terminal, Copy SSH Command and New Example Task in a real extension host, on a
// `local` cluster (the ssh side of the terminal and the copied command run against real sshd
// hosts in test/integration/access).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import { until } from './until';

const TASK = `name: connect-test
resources:
  cloud: local
run: sleep 30
`;

describe('connecting to a cluster (extension host)', function () {
  this.timeout(90_000);
  let api: SkydeckApi;
  let root: string;
  let taskFile: string;
  const cluster = `vsc-conn-${process.pid}-${Date.now().toString(36)}`;

  before(async () => {
    api = (await vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck')!.activate())!;
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    taskFile = path.join(root, `task-connect-${process.pid}.sky.yaml`);
    fs.writeFileSync(taskFile, TASK);
    const r = await vscode.commands.executeCommand<{ jobId: number } | undefined>('skydeck.launchTask', vscode.Uri.file(taskFile), { cluster });
    assert.ok(r, 'launchTask failed: see the Skydeck log');
  });

  after(async () => {
    for (const t of vscode.window.terminals) if (t.name === `Skydeck: ${cluster}`) t.dispose();
    await api?.clustersModel.reload().catch(() => undefined);
    if (api?.clustersModel.cluster(cluster)) await vscode.commands.executeCommand('skydeck.downCluster', cluster, { confirm: false });
    fs.rmSync(taskFile, { force: true });
    fs.rmSync(path.join(root, 'hello.sky.yaml'), { force: true });
  });

  it('Open SSH Terminal on a local cluster starts a real shell in the cluster\'s workdir', async () => {
    const terminal = await vscode.commands.executeCommand<vscode.Terminal | undefined>('skydeck.openTerminal', cluster);
    assert.ok(terminal, 'openTerminal failed: see the Skydeck log');
    assert.equal(terminal.name, `Skydeck: ${cluster}`);
    const workdir = path.join(root, '.skydeck', 'local', cluster, 'sky_workdir');
    const out = path.join(os.tmpdir(), `skydeck-term-${process.pid}-${Date.now()}`);
    terminal.sendText(`pwd > '${out}'`);
    const pwd = await until('the terminal to run pwd', 60_000, () => (fs.existsSync(out) && fs.readFileSync(out, 'utf8').trim()) || undefined);
    fs.rmSync(out, { force: true });
    assert.equal(fs.realpathSync(pwd), fs.realpathSync(workdir));
  });

  it('Copy SSH Command on a local cluster says there is no SSH host instead of copying something useless', async () => {
    const before = await vscode.env.clipboard.readText();
    const probe = api.testProbe!;
    const seen = { commands: probe.commands.length, notices: probe.notices.length };
    const r = await vscode.commands.executeCommand('skydeck.copySshCommand', cluster);
    assert.equal(r, undefined, 'a local cluster must not yield an ssh command');
    assert.equal(await vscode.env.clipboard.readText(), before);
    // undefined is also what any thrown command returns: the probe says it was this refusal.
    const [call] = probe.commands.slice(seen.commands);
    assert.equal(call?.command, 'skydeck.copySshCommand');
    assert.equal(call?.outcome, 'error');
    assert.match(call?.message ?? '', /runs on this machine \(local cloud\): there is no SSH host/);
    assert.ok(probe.notices.slice(seen.notices).some((n) => n.level === 'error' && /no SSH host to connect to/.test(n.message)), 'the user was not told why');
  });

  it('New Example Task copies hello.sky.yaml into the folder and opens it, never overwriting', async () => {
    const target = path.join(root, 'hello.sky.yaml');
    const uri = await vscode.commands.executeCommand<vscode.Uri>('skydeck.openExampleTask');
    assert.equal(uri?.fsPath, target);
    assert.match(fs.readFileSync(target, 'utf8'), /^name: hello$/m);
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, target);
    fs.writeFileSync(target, 'name: mine\n');
    await vscode.commands.executeCommand('skydeck.openExampleTask');
    assert.equal(fs.readFileSync(target, 'utf8'), 'name: mine\n');
  });
});
