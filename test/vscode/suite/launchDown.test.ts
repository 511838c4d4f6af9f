// Launch Task → Clusters model → Down, in a real extension host on the `local` cloud (this
// machine, no account). The commands take test arguments that skip their prompts:
// launchTask(uri, {cluster}) and downCluster(cluster, {confirm: false}).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import { log } from './log';
import { until } from './until';

const EXTENSION_ID = 'skydeck.skydeck';
const TASK = `name: host-test
resources:
  cloud: local
run: |
  echo "hello from the host test"
  sleep 2
  echo done
`;

const LONG_TASK = `name: host-test-long
resources:
  cloud: local
run: |
  echo "waiting to be cancelled"
  sleep 60
`;

describe('launch and down on the local cloud (extension host)', function () {
  this.timeout(120_000);
  let api: SkydeckApi;
  let taskFile: string;
  let longTaskFile: string;
  const cluster = `vsc-test-${process.pid}-${Date.now().toString(36)}`;

  before(async () => {
    const ext = vscode.extensions.getExtension<SkydeckApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not loaded`);
    api = await ext.activate();
    assert.ok(api?.clustersModel, 'activate() returns no clustersModel');
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(root, 'the test runner opens a workspace folder');
    taskFile = path.join(root, `task-host-test-${process.pid}.sky.yaml`);
    fs.writeFileSync(taskFile, TASK);
    longTaskFile = path.join(root, `task-host-test-long-${process.pid}.sky.yaml`);
    fs.writeFileSync(longTaskFile, LONG_TASK);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // If an assertion failed before Down ran, still leave no cluster (and no agent) behind.
    await api?.clustersModel.reload().catch(() => undefined);
    if (api?.clustersModel.cluster(cluster)) {
      log(`      cleanup: tearing down ${cluster}`);
      await vscode.commands.executeCommand('skydeck.downCluster', cluster, { confirm: false });
    }
    for (const f of [taskFile, longTaskFile]) if (f) fs.rmSync(f, { force: true });
  });

  it('launches a task with (uri, {cluster}), shows the cluster UP with job 1, execs and cancels job 2, then downs it', async () => {
    const t0 = performance.now();
    const result = await vscode.commands.executeCommand<{ cluster: string; jobId: number } | undefined>(
      'skydeck.launchTask',
      vscode.Uri.file(taskFile),
      { cluster },
    );
    assert.deepEqual(result, { cluster, jobId: 1 }, 'launchTask returned no job (its error went to a message: see the Skydeck log)');
    log(`      launch (submitted): ${(performance.now() - t0).toFixed(0)} ms`);

    const job = await until(`${cluster} UP with job 1 RUNNING or SUCCEEDED`, 60_000, async () => {
      await vscode.commands.executeCommand('skydeck.refresh');
      const c = api.clustersModel.cluster(cluster);
      const j = api.clustersModel.job(cluster, 1);
      return c?.status === 'UP' && j && ['RUNNING', 'SUCCEEDED'].includes(j.status) ? j : undefined;
    });
    assert.equal(job.name, 'host-test');
    assert.equal(api.clustersModel.errorOf(cluster), undefined);
    log(`      job 1: ${job.status}`);

    // Exec a second, long job onto the cluster, then cancel it.
    const exec = await vscode.commands.executeCommand<{ cluster: string; jobId: number } | undefined>(
      'skydeck.execTask',
      undefined,
      { cluster, taskFile: vscode.Uri.file(longTaskFile), showLogs: false },
    );
    assert.deepEqual(exec, { cluster, jobId: 2 }, 'execTask returned no job (see the Skydeck log)');
    await until('job 2 RUNNING', 30_000, async () => {
      await vscode.commands.executeCommand('skydeck.refresh');
      return api.clustersModel.job(cluster, 2)?.status === 'RUNNING' ? true : undefined;
    });
    await vscode.commands.executeCommand('skydeck.cancelJob', { cluster, jobId: 2 });
    await until('job 2 CANCELLED', 30_000, async () => {
      await vscode.commands.executeCommand('skydeck.refresh');
      return api.clustersModel.job(cluster, 2)?.status === 'CANCELLED' ? true : undefined;
    });
    assert.deepEqual(api.clustersModel.jobsOf(cluster).map((j) => j.job_id), [2, 1], 'jobs are listed newest first');

    const down = await vscode.commands.executeCommand<{ cleaned: boolean } | undefined>('skydeck.downCluster', cluster, { confirm: false });
    assert.equal(down?.cleaned, true, 'downCluster did not finish (its error went to a message: see the Skydeck log)');
    await api.clustersModel.reload();
    assert.equal(api.clustersModel.cluster(cluster), undefined, `${cluster} is still in the model after Down`);
    const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    assert.ok(!fs.existsSync(path.join(root, '.skydeck', 'local', cluster)), 'the local cluster directory is still there');
  });
});
