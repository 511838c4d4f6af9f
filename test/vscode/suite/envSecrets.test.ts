// Issue 19: Launch and Exec ask for each env and secret the task leaves empty, in a real extension
// host on the local cloud. The boxes are answered through the test probe's answerInput (the
// in-host suite cannot type into VS Code's quick input); everything after the answer is real:
// SecretStorage, workspaceState, the launch, the agent, the job's environment.
import * as assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import type { InputSeen } from '../../../src/ui/testProbe';
import { until } from './until';

function filesUnder(dir: string): { file: string; text: Buffer }[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(p);
    try {
      return e.isFile() ? [{ file: p, text: fs.readFileSync(p) }] : [];
    } catch {
      return []; // gone meanwhile (a temporary file): it held nothing then
    }
  });
}

describe('envs and secrets asked at Launch/Exec (extension host, local cloud)', function () {
  this.timeout(120_000);
  let api: SkydeckApi;
  let root: string;
  let taskFile: string;
  let seen: string;
  const cluster = `vsc-sec-${process.pid}-${Date.now().toString(36)}`;
  const core = `sk-${randomUUID()}`;
  const secret = `${core} "quoted" $HOME`;
  const boxes: InputSeen[] = [];

  before(async () => {
    api = (await vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck')!.activate())!;
    assert.ok(api.testProbe, 'activate() exposes the test probe under SKYDECK_TEST=1');
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    seen = path.join(root, `seen-${process.pid}.txt`);
    taskFile = path.join(root, `envsec-${process.pid}.sky.yaml`);
    fs.writeFileSync(taskFile, [
      'name: envsec', 'resources:', '  cloud: local', 'envs:', '  PLAIN_X:', 'secrets:', '  TOKEN_X:', 'run: |',
      `  printf '%s|' "$PLAIN_X" > ${JSON.stringify(seen)}`,
      `  printf '%s' "$TOKEN_X" | sha256sum | cut -c1-64 >> ${JSON.stringify(seen)}`,
      '',
    ].join('\n'));
  });

  after(async () => {
    if (api?.testProbe) api.testProbe.answerInput = undefined;
    await api?.clustersModel.reload().catch(() => undefined);
    if (api?.clustersModel.cluster(cluster)) await vscode.commands.executeCommand('skydeck.downCluster', cluster, { confirm: false });
    for (const f of [taskFile, seen]) if (f) fs.rmSync(f, { force: true });
  });

  const expectSeen = async (plain: string) => {
    const want = `${plain}|${createHash('sha256').update(secret).digest('hex')}\n`;
    await until('the job to write what it saw', 30_000, () => (fs.existsSync(seen) && fs.readFileSync(seen, 'utf8') === want ? true : undefined));
    fs.rmSync(seen);
  };

  it('Launch asks twice (env, then secret as a password, naming key and file); the job sees both; the secret is nowhere on disk', async () => {
    const probe = api.testProbe!;
    probe.answerInput = (b) => (boxes.push(b), b.password ? secret : 'plain-19');
    const r = await vscode.commands.executeCommand<{ cluster: string; jobId: number }>('skydeck.launchTask', vscode.Uri.file(taskFile), { cluster, showLogs: false });
    assert.deepEqual(r, { cluster, jobId: 1 }, 'launchTask returned no job (see the Skydeck log)');
    assert.deepEqual(boxes.map((b) => [b.password, b.value]), [[false, ''], [true, '']]);
    assert.match(boxes[0].title, new RegExp(`env PLAIN_X for envsec-${process.pid}\\.sky\\.yaml`));
    assert.match(boxes[1].title, new RegExp(`secret TOKEN_X for envsec-${process.pid}\\.sky\\.yaml`));
    await expectSeen('plain-19');

    // On disk: the workspace's .skydeck (state, events, the local cluster's agent: jobs.db, logs),
    // the user's ~/.skydeck (SKYDECK_HOME: the index) and the editor's logs (the output channel).
    const userData = path.join(path.dirname(root), 'user-data');
    const files = [...filesUnder(path.join(root, '.skydeck')), ...filesUnder(path.join(os.homedir(), '.skydeck')), ...filesUnder(path.join(userData, 'logs')),
      ...filesUnder(path.join(root, '.vscode'))];
    assert.ok(files.some((f) => f.file.endsWith('state.db')) && files.some((f) => f.file.endsWith('jobs.db')), 'the state and the agent\'s jobs.db were not where the test looks');
    assert.ok(files.some((f) => f.file.startsWith(userData) && f.text.includes(`launched ${taskFile} on ${cluster}`)), 'the Skydeck output channel\'s log file was not where the test looks');
    assert.deepEqual(files.filter((f) => f.text.includes(core)).map((f) => f.file), [], 'the secret is on disk');
    assert.ok(!probe.notices.some((n) => n.message.includes(core)), 'the secret was shown in a notification');
  });

  it('Exec offers the remembered env and the stored secret; empty answers use them', async () => {
    boxes.length = 0;
    api.testProbe!.answerInput = (b) => (boxes.push(b), b.password ? '' : b.value);
    const r = await vscode.commands.executeCommand<{ cluster: string; jobId: number }>('skydeck.execTask', undefined, { cluster, taskFile: vscode.Uri.file(taskFile), showLogs: false });
    assert.deepEqual(r, { cluster, jobId: 2 }, 'execTask returned no job (see the Skydeck log)');
    assert.deepEqual(boxes.map((b) => [b.password, b.value]), [[false, 'plain-19'], [true, '']]);
    assert.match(boxes[1].prompt, /Enter to use the stored value/);
    await expectSeen('plain-19'); // the secret came back from SecretStorage: it is on no disk the test could see
  });

  it('Escape on a box cancels cleanly: no job, no cluster', async () => {
    const other = `${cluster}-esc`;
    api.testProbe!.answerInput = (b) => (b.password ? undefined : 'x');
    const before = api.testProbe!.commands.length;
    const r = await vscode.commands.executeCommand('skydeck.launchTask', vscode.Uri.file(taskFile), { cluster: other, showLogs: false });
    assert.equal(r, undefined);
    assert.deepEqual(api.testProbe!.commands.slice(before).map((c) => c.outcome), ['dismissed']);
    await api.clustersModel.reload();
    assert.equal(api.clustersModel.cluster(other), undefined, 'Escape left a cluster behind');
    assert.ok(!fs.existsSync(path.join(root, '.skydeck', 'local', other)), 'Escape left a local cluster directory');
  });
});
