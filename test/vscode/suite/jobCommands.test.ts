// Show Logs and Cancel All Jobs in a real extension host on a `local` cluster, each given the
// tree node the Clusters view hands it (a job click or context menu passes the JobNode, a
// cluster's context menu its ClusterNode), taken from the view's own data provider.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import type { ClusterNode } from '../../../src/ui/tree/clusterNode';
import type { JobNode } from '../../../src/ui/tree/jobNode';
import { assertOk, call } from './probeCalls';
import { until } from './until';

const TASK = `name: host-logs
resources:
  cloud: local
run: |
  echo "first line from the logs test"
  echo "second line from the logs test"
`;

const LONG = `name: host-long
resources:
  cloud: local
run: sleep 120
`;

describe('job commands from the Clusters view (extension host, local cloud)', function () {
  this.timeout(120_000);
  let api: SkydeckApi;
  let root: string;
  const files: string[] = [];
  const cluster = `vsc-jobs-${process.pid}-${Date.now().toString(36)}`;

  const taskFile = (name: string, text: string): vscode.Uri => {
    const f = path.join(root, `${name}-${process.pid}.sky.yaml`);
    fs.writeFileSync(f, text);
    files.push(f);
    return vscode.Uri.file(f);
  };

  async function clusterNode(): Promise<ClusterNode> {
    await api.clustersModel.reload();
    const nodes = await api.testTree!.getChildren();
    const node = nodes.find((n): n is ClusterNode => n.kind === 'cluster' && n.cluster.name === cluster);
    assert.ok(node, `the Clusters view shows no node for ${cluster}`);
    return node;
  }

  async function jobNode(jobId: number): Promise<JobNode> {
    const nodes = await api.testTree!.getChildren(await clusterNode());
    const node = nodes.find((n): n is JobNode => n.kind === 'job' && n.job.job_id === jobId);
    assert.ok(node, `the Clusters view shows no job #${jobId} under ${cluster}`);
    return node;
  }

  before(async () => {
    api = (await vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck')!.activate())!;
    assert.ok(api.testTree && api.testProbe, 'activate() exposes testTree and testProbe under SKYDECK_TEST=1');
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const r = await vscode.commands.executeCommand<{ jobId: number } | undefined>('skydeck.launchTask', taskFile('task-logs', TASK), { cluster, showLogs: false });
    assert.equal(r?.jobId, 1, 'launchTask failed: see the Skydeck log');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await api?.clustersModel.reload().catch(() => undefined);
    if (api?.clustersModel.cluster(cluster)) await vscode.commands.executeCommand('skydeck.downCluster', cluster, { confirm: false });
    for (const f of files) fs.rmSync(f, { force: true });
  });

  it('Show Logs on the JobNode the tree hands it opens the job\'s panel, which receives and draws its output', async () => {
    await until('job 1 SUCCEEDED', 60_000, async () => {
      await api.clustersModel.reload();
      return api.clustersModel.job(cluster, 1)?.status === 'SUCCEEDED' ? true : undefined;
    });
    const node = await jobNode(1);
    // A click runs the node's own command with the node as its argument; the menu passes the node.
    assert.deepEqual(node.command && { id: node.command.command, args: node.command.arguments }, { id: 'skydeck.showLogs', args: [node] });
    const title = `${cluster} #1 host-logs`;
    const opened = api.testProbe!.logPanels.length;
    assertOk(await call(api, 'skydeck.showLogs', node));

    const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs);
    // The workbench reports the new tab a moment after the panel is created.
    const tab = await until(`an editor tab titled "${title}"`, 10_000, () => tabs().find((t) => t.label === title));
    assert.ok(tab.input instanceof vscode.TabInputWebview && /skydeck\.logs$/.test(tab.input.viewType), 'the tab is not a Skydeck log webview');
    const [panel, ...more] = api.testProbe!.logPanels.slice(opened);
    assert.equal(more.length, 0, 'one Show Logs opened more than one panel');
    assert.deepEqual({ title: panel?.title, cluster: panel?.cluster, jobId: panel?.jobId }, { title, cluster, jobId: 1 });
    const text = await until('the job\'s output in the panel', 30_000, () => (/second line from the logs test/.test(panel.text()) ? panel.text() : undefined));
    assert.match(text, /^first line from the logs test\r?\nsecond line from the logs test\r?\n/m);
    // The page itself (xterm.js in the webview) reports what it wrote: the output reached it.
    await until('the page to acknowledge the whole log', 30_000, () => (panel.acknowledged() >= Buffer.byteLength(text) ? true : undefined));

    // Again on the same job: the panel is revealed, not duplicated.
    assertOk(await call(api, 'skydeck.showLogs', await jobNode(1)));
    assert.equal(api.testProbe!.logPanels.length, opened + 1);
    assert.equal(tabs().filter((t) => t.label === title).length, 1);
  });

  it('Cancel All Jobs on the ClusterNode cancels every unfinished job and leaves finished ones alone', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await vscode.commands.executeCommand<{ jobId: number } | undefined>('skydeck.execTask', undefined, { cluster, taskFile: taskFile(`task-long-${i}`, LONG), showLogs: false });
      assert.ok(r?.jobId, 'execTask failed: see the Skydeck log');
      ids.push(r.jobId);
    }
    await until(`jobs ${ids.join(', ')} RUNNING`, 30_000, async () => {
      await api.clustersModel.reload();
      return ids.every((id) => api.clustersModel.job(cluster, id)?.status === 'RUNNING') ? true : undefined;
    });
    const before = api.clustersModel.jobsOf(cluster).filter((j) => !ids.includes(j.job_id)).map((j) => `${j.job_id} ${j.status}`);

    const c = await call<{ cancelled: number[] }>(api, 'skydeck.cancelAllJobs', await clusterNode());
    assertOk(c);
    assert.deepEqual([...(c.result?.cancelled ?? [])].sort((a, b) => a - b), ids);
    assert.ok(c.notices.some((n) => n.level === 'info' && n.message === `Skydeck: cancelled 3 jobs on ${cluster}.`), JSON.stringify(c.notices));
    await until('every job CANCELLED', 30_000, async () => {
      await api.clustersModel.reload();
      return ids.every((id) => api.clustersModel.job(cluster, id)?.status === 'CANCELLED') ? true : undefined;
    });
    const after = api.clustersModel.jobsOf(cluster).filter((j) => !ids.includes(j.job_id)).map((j) => `${j.job_id} ${j.status}`);
    assert.deepEqual(after, before, 'jobs that had finished changed');
    assert.equal(api.clustersModel.cluster(cluster)?.status, 'UP', 'the cluster itself stays up');
  });
});
