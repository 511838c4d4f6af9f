// Copy SSH Command, Connect with Remote-SSH and Check Clouds in a real extension host, on an
// `ssh` pool cluster whose head is a real sshd on 127.0.0.x (test/hosts), given to Skydeck through
// the machine-scoped skydeck.sshPools user setting. What Skydeck hands the user is then run with
// OpenSSH's own client. runTests.ts gives the host a scratch HOME, so ~/.skydeck and ~/.ssh here
// are the test's own.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import type { OpsContext } from '../../../src/core/ops';
import type { CloudCheck } from '../../../src/core/clouds/check';
import type { ClusterNode } from '../../../src/ui/tree/clusterNode';
import { startHosts, type TestHosts } from '../../hosts';
import { missingPrerequisites } from '../../hosts/system';
import { skipOrFailWithout } from '../../support/ci';
import { assertOk, call, callClosing } from './probeCalls';

const TASK = 'name: ssh-cmds\nresources:\n  cloud: ssh\nrun: echo "ran over ssh"\n';

type HostKeyQuestion = (host: string, fingerprint: string, type: string) => Promise<boolean>;

/** OpenSSH's client (or a shell running it), with a bounded wait. */
function run(file: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 30_000 }, (e, out, err) => resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, out, err }));
  });
}

describe('ssh pool cluster: access commands and Check Clouds (extension host, real sshd)', function () {
  this.timeout(120_000);
  let api: SkydeckApi;
  let ops: OpsContext;
  let hosts: TestHosts | undefined;
  let taskFile: string | undefined;
  let savedQuestion: HostKeyQuestion | undefined;
  const asked: string[] = [];
  const cluster = `vsc-ssh-${process.pid}-${Date.now().toString(36)}`;
  const pool = `vsc-pool-${process.pid}`;
  // Connections' host-key question (a modal in the editor), answered as a user clicking Trust.
  const question = () => (ops.connections as unknown as { opts: { onUnknownHostKey?: HostKeyQuestion } }).opts;

  async function clusterNode(): Promise<ClusterNode> {
    await api.clustersModel.reload();
    const node = (await api.testTree!.getChildren()).find((n): n is ClusterNode => n.kind === 'cluster' && n.cluster.name === cluster);
    assert.ok(node, `the Clusters view shows no node for ${cluster}`);
    return node;
  }

  before(async function () {
    const missing = missingPrerequisites();
    if (missing.length) skipOrFailWithout(this, 'the ssh access commands in the extension host', `no real sshd test host: ${missing.join('; ')}`);
    api = (await vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck')!.activate())!;
    assert.ok(api.testOps && api.testTree && api.testProbe, 'activate() exposes the test API under SKYDECK_TEST=1');
    assert.notEqual(os.homedir(), os.userInfo().homedir, 'runTests.ts gives the extension host a scratch HOME');
    ops = await api.testOps();
    hosts = await startHosts(1);
    const h = hosts.hosts[0];
    const config = vscode.workspace.getConfiguration('skydeck');
    await config.update('sshPools', { [pool]: { hosts: [`${h.user}@${h.address}:${h.port}`], identity_file: hosts.clientKeyPath } }, vscode.ConfigurationTarget.Global);
    assert.ok((vscode.workspace.getConfiguration('skydeck').inspect<Record<string, unknown>>('sshPools')?.globalValue ?? {})[pool], 'the user setting skydeck.sshPools did not take');
    savedQuestion = question().onUnknownHostKey;
    question().onUnknownHostKey = async (host, fingerprint) => {
      asked.push(`${host} ${fingerprint}`);
      return true;
    };
    taskFile = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, `ssh-cmds-${process.pid}.sky.yaml`);
    fs.writeFileSync(taskFile, TASK);
    const r = await vscode.commands.executeCommand<{ jobId: number } | undefined>('skydeck.launchTask', vscode.Uri.file(taskFile), { cluster, showLogs: false });
    assert.equal(r?.jobId, 1, 'launchTask on the ssh pool failed: see the Skydeck log');
    // The one question Skydeck asked named the host's real key; Trust recorded it in Skydeck's known_hosts.
    assert.deepEqual([...new Set(asked)], [`${h.address}:${h.port} ${h.hostKeyFingerprint}`]);
    assert.ok(fs.readFileSync(ops.connections.knownHostsFile, 'utf8').includes(hosts.knownHostsLine(h)), 'the trusted key is not in Skydeck\'s known_hosts');
    assert.ok(!fs.existsSync(path.join(os.homedir(), '.ssh', 'known_hosts')), 'the user\'s own known_hosts must not vouch for the host here');
  });

  after(async () => {
    await api?.clustersModel.reload().catch(() => undefined);
    if (api?.clustersModel.cluster(cluster)) await vscode.commands.executeCommand('skydeck.downCluster', cluster, { confirm: false });
    if (ops && savedQuestion) question().onUnknownHostKey = savedQuestion;
    await vscode.workspace.getConfiguration('skydeck').update('sshPools', undefined, vscode.ConfigurationTarget.Global);
    if (taskFile) fs.rmSync(taskFile, { force: true });
    await hosts?.stop();
  });

  it('Copy SSH Command puts a command on the clipboard that logs in with OpenSSH, checking the host key Skydeck recorded', async () => {
    const c = await call<string>(api, 'skydeck.copySshCommand', await clusterNode());
    assertOk(c);
    assert.equal(await vscode.env.clipboard.readText(), c.result, 'the clipboard does not hold the command');
    assert.ok(c.notices.some((n) => n.message === `Skydeck: copied the SSH command for ${cluster}.`), JSON.stringify(c.notices));
    const h = hosts!.hosts[0];
    // Pasted into a shell, with nothing from the machine's own ssh config and no prompts.
    const line = c.result!.replace(/^ssh /, 'ssh -F /dev/null -o BatchMode=yes ');
    const r = await run('/bin/sh', ['-c', `${line} id -un`]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out.trim(), h.user);
    assert.equal((await run('/bin/sh', ['-c', `${line} true`])).code, 0);
  });

  it('Connect with Remote-SSH (not installed) writes the Host entry, includes it from ~/.ssh/config and points to Remote-SSH', async () => {
    // Without Remote-SSH it offers to find it and waits for the answer: the test dismisses it.
    const c = await callClosing<{ alias: string; file: string; opened: boolean }>(api, 'notifications.clearAll', 'skydeck.connectRemoteSsh', await clusterNode(), { addInclude: true });
    assert.ok(c.notices.some((n) => n.level === 'info' && /Install the Remote - SSH extension/.test(n.message)), JSON.stringify(c.notices));
    assertOk(c);
    const alias = `skydeck-${cluster}`;
    assert.deepEqual(c.result, { alias, file: path.join(os.homedir(), '.skydeck', 'ssh', 'config.d', `${alias}.conf`), opened: false });
    assert.match(fs.readFileSync(c.result!.file, 'utf8'), new RegExp(`^Host ${alias}$`, 'm'));
    const userConfig = path.join(os.homedir(), '.ssh', 'config');
    assert.match(fs.readFileSync(userConfig, 'utf8'), /^Include .*config\.d\/\*\.conf$/m);
    for (const config of [c.result!.file, userConfig]) {
      const r = await run('ssh', ['-F', config, '-o', 'BatchMode=yes', alias, 'true']);
      assert.equal(r.code, 0, `ssh -F ${config} ${alias} true: ${r.err}`);
    }
  });

  it('Check Clouds ends ok and lists local as usable and the ssh pool with its host', async () => {
    // Only the clouds that need no network beyond this machine (aws/gcp/azure would call out).
    // It shows the results as a quick pick; closing it ends the command.
    const c = await callClosing<CloudCheck[]>(api, 'workbench.action.closeQuickOpen', 'skydeck.checkClouds', { only: ['local', 'ssh'] });
    assertOk(c);
    const byCloud = Object.fromEntries((c.result ?? []).map((r) => [r.cloud, r]));
    assert.deepEqual(Object.keys(byCloud), ['local', 'ssh']);
    assert.equal(byCloud.local.ok, true, byCloud.local.detail);
    assert.match(byCloud.local.detail, /this machine \(Python 3\.\d+\)/);
    assert.equal(byCloud.ssh.ok, true, byCloud.ssh.detail);
    assert.equal(byCloud.ssh.detail, `${pool} (1 host)`);
  });
});
