// Issue 19 "one truth on screen" and "job-end notifications", in a real extension host on a
// `local` cluster: a job exec'd from the editor ends, and the tree row, the status bar and a
// notification say so at once. The view's poll is set to an hour and every reload of the model is
// counted: with none between the exec and the check, only the job-end event can explain the change.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import type { ClusterNode } from '../../../src/ui/tree/clusterNode';
import type { JobNode } from '../../../src/ui/tree/jobNode';
import type { Notice } from '../../../src/ui/testProbe';
import { until } from './until';

const task = (name: string, run: string) => `name: ${name}\nresources:\n  cloud: local\nrun: ${JSON.stringify(run)}\n`;

describe('issue 19: a job\'s end shows at once (extension host, local cloud)', function () {
  this.timeout(180_000);
  let api: SkydeckApi;
  let root: string;
  const files: string[] = [];
  const cluster = `vsc-end-${process.pid}-${Date.now().toString(36)}`;
  let reloads = 0;
  let restoreReload: (() => void) | undefined;

  const taskFile = (name: string, text: string): vscode.Uri => {
    const f = path.join(root, `${name}-${process.pid}.sky.yaml`);
    fs.writeFileSync(f, text);
    files.push(f);
    return vscode.Uri.file(f);
  };

  /** The job's row as the Clusters view draws it now (no reload: the tree's cached model). */
  async function row(jobId: number): Promise<JobNode | undefined> {
    const top = await api.testTree!.getChildren();
    const c = top.find((n): n is ClusterNode => n.kind === 'cluster' && n.cluster.name === cluster);
    if (!c) return undefined;
    return (await api.testTree!.getChildren(c)).find((n): n is JobNode => n.kind === 'job' && n.job.job_id === jobId);
  }

  const noticesOf = (jobId: number): Notice[] => api.testProbe!.notices.filter((n) => n.message.startsWith(`Skydeck: ${cluster} #${jobId} `));

  async function exec(file: vscode.Uri, showLogs: boolean): Promise<number> {
    const r = await vscode.commands.executeCommand<{ jobId: number } | undefined>('skydeck.execTask', undefined, { cluster, taskFile: file, showLogs });
    assert.ok(r?.jobId, 'execTask failed: see the Skydeck log');
    return r.jobId;
  }

  before(async () => {
    api = (await vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck')!.activate())!;
    assert.ok(api.testTree && api.testProbe, 'activate() exposes testTree and testProbe under SKYDECK_TEST=1');
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    await vscode.workspace.getConfiguration('skydeck').update('refreshIntervalSeconds', 3600, vscode.ConfigurationTarget.Global);
    const r = await vscode.commands.executeCommand<{ jobId: number } | undefined>('skydeck.launchTask', taskFile('end-up', task('end-up', 'true')), { cluster, showLogs: false });
    assert.ok(r?.jobId, 'launchTask failed: see the Skydeck log');
    // The launch's own job ends before the tests count running jobs (under load it may not have).
    await until(`launch job ${r.jobId} ended`, 60_000, async () => {
      await api.clustersModel.reload();
      return api.clustersModel.job(cluster, r.jobId)?.status === 'SUCCEEDED' ? true : undefined;
    });
    const model = api.clustersModel;
    const reload = model.reload;
    model.reload = function (this: typeof model) {
      reloads++;
      return reload.call(this);
    };
    restoreReload = () => { model.reload = reload; };
  });

  after(async () => {
    restoreReload?.();
    if (api?.testProbe) api.testProbe.respond = undefined;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration('skydeck').update('refreshIntervalSeconds', undefined, vscode.ConfigurationTarget.Global);
    await api?.clustersModel.reload().catch(() => undefined);
    if (api?.clustersModel.cluster(cluster)) await vscode.commands.executeCommand('skydeck.downCluster', cluster, { confirm: false });
    for (const f of files) fs.rmSync(f, { force: true });
  });

  it('issue 19: exec from the editor (log panel open): the row says SUCCEEDED and the status bar drops before any poll; one notification with Show Logs / Re-run', async () => {
    const id = await exec(taskFile('end-ok', task('host-end-ok', 'sleep 3; echo finished')), true);
    // Exec reloaded the view once after submitting: the job is running there.
    assert.equal(api.clustersModel.job(cluster, id)?.status, 'RUNNING', 'the job was not RUNNING when exec returned');
    assert.match(api.testProbe!.statusBar?.text ?? "", /· 1 running/);
    assert.match(String((await row(id))?.description), /^RUNNING · /);
    reloads = 0;

    const node = await until(`job ${id} SUCCEEDED in the tree`, 60_000, async () => {
      const n = await row(id);
      return n?.job.status === 'SUCCEEDED' ? n : undefined;
    });
    assert.equal(reloads, 0, 'the view was reloaded: the change may have come from a poll, not from the job\'s end');
    assert.match(String(node.description), /^SUCCEEDED · \d+s/);
    assert.match(api.testProbe!.statusBar?.text ?? "", /· 0 running/);
    const told = await until('the job-end notification', 10_000, () => (noticesOf(id).length ? noticesOf(id) : undefined));
    assert.deepEqual(told, [{ level: 'info', message: `Skydeck: ${cluster} #${id} host-end-ok succeeded.`, items: ['Show Logs', 'Re-run'] }]);

    // The poll (a reload) and another panel learn of the same end: still one notification.
    await api.clustersModel.reload();
    const panels = api.testProbe!.logPanels.length;
    await vscode.commands.executeCommand('skydeck.showLogs', { cluster, jobId: id });
    await until('the log panel', 30_000, () => (/finished/.test(api.testProbe!.logPanels.at(-1)?.text() ?? '') ? true : undefined));
    assert.ok(api.testProbe!.logPanels.length <= panels + 1);
    assert.equal(noticesOf(id).length, 1, JSON.stringify(noticesOf(id)));
  });

  it('issue 19: a failing job exec\'d with no panel says "exit 1" in its row and its notification; Re-run execs the same task again', async () => {
    let rerun = false;
    // What the window knew when it told of the end: the Re-run picked here execs and reloads the
    // view at once, which may be before the poll below looks at the row (all in one event loop).
    let atNotice: { reloads: number; status: string | undefined } | undefined;
    api.testProbe!.respond = (n) => {
      if (rerun || !/failed \(exit 1\)/.test(n.message) || !n.message.includes(cluster)) return undefined;
      rerun = true;
      atNotice = { reloads, status: api.clustersModel.job(cluster, id)?.status };
      return 'Re-run';
    };
    const execs = () => api.testProbe!.commands.filter((c) => c.command === 'skydeck.execTask' && c.outcome === 'ok').length;
    const before = execs();
    let id = 0;
    id = await exec(taskFile('end-fail', task('host-end-fail', 'sleep 2; exit 1')), false);
    reloads = 0;
    const node = await until(`job ${id} FAILED in the tree`, 60_000, async () => {
      const n = await row(id);
      return n?.job.status === 'FAILED' ? n : undefined;
    });
    await until('the Re-run pick', 10_000, () => atNotice);
    assert.deepEqual(atNotice, { reloads: 0, status: 'FAILED' }, 'the view was reloaded before the job-end notice: the change may have come from a poll');
    assert.match(String(node.description), /^FAILED \(exit 1\) · /);
    const told = await until('the job-end notification', 10_000, () => (noticesOf(id).length ? noticesOf(id) : undefined));
    assert.deepEqual(told, [{ level: 'error', message: `Skydeck: ${cluster} #${id} host-end-fail failed (exit 1).`, items: ['Show Logs', 'Re-run'] }]);
    // Re-run: the same task file, exec'd again on the same cluster (a new job, which fails again).
    await until('the Re-run exec', 60_000, () => (execs() >= before + 2 ? true : undefined));
    api.testProbe!.respond = undefined;
    const again = id + 1;
    await until(`re-run job ${again} FAILED`, 60_000, async () => ((await row(again))?.job.status === 'FAILED' ? true : undefined));
    assert.equal((await row(again))?.job.name, 'host-end-fail');
    await until('the re-run\'s own notification', 10_000, () => (noticesOf(again).length === 1 ? true : undefined));
  });

  it('issue 19: a `skydeck` CLI call in the same workspace that saves the state shows in the view with no poll', async () => {
    const cli = path.join(vscode.extensions.getExtension('skydeck.skydeck')!.extensionPath, 'dist', 'cli.js');
    const run = (...args: string[]) => new Promise<string>((resolve, reject) => execFile(process.execPath, [cli, ...args],
      { cwd: root, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, timeout: 60_000 },
      (e, out, err) => (e ? reject(new Error(`skydeck ${args.join(' ')}: ${e.message}\n${err}`)) : resolve(out))));
    const known = new Set(api.clustersModel.jobsOf(cluster).map((j) => j.job_id));
    reloads = 0;
    await run('exec', cluster, '--', 'true');
    // The CLI's queue caches the jobs in the workspace state: a save by another process.
    await run('queue', cluster);
    const fresh = await until('the CLI\'s job in the view', 30_000, () => api.clustersModel.jobsOf(cluster).find((j) => !known.has(j.job_id)));
    assert.ok(reloads >= 1, 'no reload: the job cannot have come from the state file');
    assert.ok(fresh.job_id > Math.max(...known));
    assert.equal(noticesOf(fresh.job_id).length, 0, 'a job the CLI started is not announced in this window');
  });
});
