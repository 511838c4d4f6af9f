// Managed jobs in a real extension host (issue 17, editor part). The controller is a
// ManagedController in this process over the controller's workspace (~/.skydeck/controller of
// the run's scratch HOME) and the fake cloud as aws, whose instances are this machine: its live
// lease (this pid) means the extension's client starts no background process, exactly as the
// CLI tests do. The commands, the tree section and the log panel are the extension's own.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import type { ManagedController, ManagedJob } from '../../../src/core/managed';
import type { OpsContext } from '../../../src/core/ops';
import type { ManagedJobNode, ManagedGroupNode } from '../../../src/ui/tree/managedNodes';
import { FakeProvider } from '../../support/fakeCloud/fakeProvider';
import { leaks } from '../../support/fakeCloud/harness';
import { ended, makeCtx, openController } from '../../unit/managed/helpers';
import { cleanupBase } from '../../unit/agent/helpers';
import { assertOk, call } from './probeCalls';
import { until } from './until';

describe('issue 17: managed jobs in the editor (extension host, fake cloud, in-process controller)', function () {
  this.timeout(180_000);
  let api: SkydeckApi;
  let ctx: OpsContext;
  let cloud: FakeProvider;
  let ctl: ManagedController;
  let root: string;
  // Where the extension's controllerHome() looks: the test runner may name it (a scratch home).
  const home = process.env.SKYDECK_CONTROLLER_HOME || path.join(os.homedir(), '.skydeck', 'controller');
  const files: string[] = [];

  const taskFile = (name: string, text: string): vscode.Uri => {
    const f = path.join(root, `${name}-${process.pid}.sky.yaml`);
    fs.writeFileSync(f, text);
    files.push(f);
    return vscode.Uri.file(f);
  };
  const jobOf = async (id: number, pred: (j: ManagedJob) => boolean, what: string): Promise<ManagedJob> =>
    until(`managed job ${id} ${what}`, 60_000, async () => {
      const j = (await ctl.list()).jobs.find((x) => x.id === id);
      return j && pred(j) ? j : undefined;
    });
  async function jobNode(id: number): Promise<ManagedJobNode> {
    await api.clustersModel.reload();
    const group = (await api.testTree!.getChildren()).find((n): n is ManagedGroupNode => n.kind === 'managed');
    assert.ok(group, 'the Clusters view shows no "Managed jobs" section');
    const node = (await api.testTree!.getChildren(group)).find((n): n is ManagedJobNode => n.kind === 'managed-job' && n.view.job.id === id);
    assert.ok(node, `the Managed jobs section shows no job ${id}`);
    return node;
  }

  before(async () => {
    process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
    api = (await vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck')!.activate())!;
    assert.ok(api.testTree && api.testProbe, 'activate() exposes testTree and testProbe under SKYDECK_TEST=1');
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    fs.mkdirSync(home, { recursive: true });
    ({ ctx, cloud } = await makeCtx(home));
    ctl = await openController(ctx);
  });

  after(async () => {
    delete process.env.SKYDECK_SHUTDOWN_COMMAND;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await ctl?.stop();
    await ctx?.connections.closeAll();
    ctx?.store.close();
    await cleanupBase(home);
    for (const f of files) fs.rmSync(f, { force: true });
  });

  it('Launch as Managed Job (CodeLens next to Launch) submits; the section shows it at once, then its recovery, in one continuous log panel with a marked line', async () => {
    const m = path.join(home, `ran-${process.pid}`);
    const uri = taskFile('mj-recover', `name: mj-recover\nresources:\n  infra: aws/r1\n` +
      `run: if [ -e ${m} ]; then echo after-recovery; else touch ${m}; echo before-preempt; sleep 60; fi\n`);
    // Lenses are asked of an open document, as the editor does.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const lenses = await until('the task file\'s CodeLenses', 30_000, async () => {
      const l = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
      return l?.length ? l : undefined;
    });
    const lens = lenses.find((l) => l.command?.command === 'skydeck.launchManagedJob');
    assert.ok(lens, `no Launch as Managed Job lens; got ${JSON.stringify(lenses.map((l) => l.command?.title))}`);
    assert.deepEqual([lens.command?.title, lens.range.start.line, String(lens.command?.arguments?.[0])], ['▶ Launch as Managed Job', 0, uri.toString()]);

    const c = await call<{ id: number }>(api, 'skydeck.launchManagedJob', ...lens.command!.arguments!, { confirm: false, showLogs: false });
    assertOk(c);
    const id = c.result!.id;
    // Refreshed right after the submit, without waiting for the poll.
    assert.ok(api.clustersModel.managed.job(id), 'the section did not refresh after the submit');

    const running = await jobOf(id, (j) => j.status === 'RUNNING' && fs.existsSync(m), 'running');
    const node = await jobNode(id);
    assert.equal(node.label, `#${id} mj-recover`);
    // The fake cloud's cluster records no instance type: its price is the shape's cheapest shipped fit (the tree's PriceBook).
    assert.match(String(node.description), new RegExp(`^running · 0 recoveries · on mj-recover-mj${id}-1 · [\\dhms ]+ · ≈ \\$\\d+\\.\\d+ so far$`));
    assert.equal(node.contextValue, 'managedJob:active');
    assert.deepEqual(node.command && { id: node.command.command, args: node.command.arguments }, { id: 'skydeck.showManagedJobLogs', args: [node] });

    const opened = api.testProbe!.logPanels.length;
    assertOk(await call(api, 'skydeck.showManagedJobLogs', node));
    const panel = api.testProbe!.logPanels[opened];
    assert.ok(panel, 'no log panel opened');
    assert.equal(panel.title, `managed job ${id} mj-recover`);
    await until('the first cluster\'s output in the panel', 30_000, () => (/before-preempt/.test(panel.text()) ? true : undefined));

    cloud.cloudActs('preempt', { uid: running.clusterUid! });
    const done = await jobOf(id, ended, 'ended');
    assert.equal(done.status, 'SUCCEEDED', done.lastError ?? '');
    const text = await until('the recovered cluster\'s output in the same panel', 60_000, () => (/after-recovery/.test(panel.text()) ? panel.text() : undefined));
    // The recovered cluster's output comes live (a styled marker naming the recovery count) or,
    // when the job ran there and ended between two looks, as the controller kept it (a plain
    // marker naming the launch): one continuous log either way.
    const live = `before-preempt\n\x1b[1;33m--- managed job ${id}: now on cluster mj-recover-mj${id}-2 (recoveries: 1) ---\x1b[0m\nafter-recovery\n`;
    const kept = `before-preempt\n--- managed job ${id}: now on cluster mj-recover-mj${id}-2 (launch 2) ---\nafter-recovery\n`;
    assert.ok(text === live || text === kept, JSON.stringify(text));
    await until('the page to acknowledge the whole log', 30_000, () => (panel.acknowledged() >= Buffer.byteLength(text) ? true : undefined));

    const after = await jobNode(id);
    assert.match(String(after.description), /^succeeded · 1 recovery · no cluster · [\dhms ]+ · cost unknown$/);
    assert.equal(after.contextValue, 'managedJob:ended');
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
  });

  it('Cancel Managed Job on the job\'s node: CANCELLED, its cluster torn down with proof, 0 leaks; the section refreshed at once', async () => {
    const c = await call<{ id: number }>(api, 'skydeck.launchManagedJob', taskFile('mj-long', 'name: mj-long\nresources:\n  infra: aws/r1\nrun: sleep 120\n'), { confirm: false, showLogs: false });
    assertOk(c);
    const id = c.result!.id;
    await jobOf(id, (j) => j.status === 'RUNNING', 'running');
    const x = await call<{ requested: number[] }>(api, 'skydeck.cancelManagedJob', await jobNode(id), { confirm: false });
    assertOk(x);
    assert.deepEqual(x.result?.requested, [id]);
    assert.ok(x.notices.some((n) => n.level === 'info' && n.message === `Skydeck: cancelling managed job ${id} (mj-long); its cluster is torn down with proof.`), JSON.stringify(x.notices));
    assert.equal(api.clustersModel.managed.job(id)?.job.cancelRequested, true, 'the section did not refresh after the cancel');
    const j = await jobOf(id, ended, 'cancelled');
    assert.equal(j.status, 'CANCELLED');
    assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
    // Show Managed Job Logs of the ended job: the output the controller kept.
    const opened = api.testProbe!.logPanels.length;
    assertOk(await call(api, 'skydeck.showManagedJobLogs', id));
    assert.equal(api.testProbe!.logPanels.length, opened + 1);
  });

  it('a relative workdir is the workspace folder (not the YAML\'s), copied to the controller with the job; the copy goes once the job ends', async () => {
    const sub = fs.mkdtempSync(path.join(root, 'mj-sub-'));
    const marker = `mj-marker-${process.pid}.txt`;
    fs.writeFileSync(path.join(root, marker), 'from the workspace folder\n');
    try {
      const yaml = path.join(sub, 'mj-wd.sky.yaml');
      fs.writeFileSync(yaml, `name: mj-wd\nresources:\n  infra: aws/r1\nworkdir: .\nrun: cat ${marker}\n`);
      const c = await call<{ id: number }>(api, 'skydeck.launchManagedJob', vscode.Uri.file(yaml), { confirm: false, showLogs: false });
      assertOk(c);
      const id = c.result!.id;
      const j = await jobOf(id, () => true, 'recorded');
      assert.match(j.uploads ?? '', /^[0-9a-f]{32}$/, 'the job records its copies');
      const copy = path.join(home, '.skydeck', 'managed', 'uploads', j.uploads!);
      assert.equal(fs.readFileSync(path.join(copy, '1', marker), 'utf8'), 'from the workspace folder\n');
      assert.ok(j.tasks[0].includes(`${copy}/1`), j.tasks[0]);
      const done = await jobOf(id, ended, 'ended');
      assert.equal(done.status, 'SUCCEEDED', done.lastError ?? '');
      await until('the copy to be removed', 30_000, async () => !fs.existsSync(copy) || undefined);
    } finally {
      fs.rmSync(sub, { recursive: true, force: true });
      fs.rmSync(path.join(root, marker), { force: true });
    }
  });

  it('a task YAML with errors is refused before anything is submitted', async () => {
    const before = (await ctl.list()).jobs.length;
    const c = await call(api, 'skydeck.launchManagedJob', taskFile('mj-bad', 'run: echo hi\nresources:\n  cpus: lots\n'), { confirm: false, showLogs: false });
    assert.equal(c.outcome.outcome, 'error');
    assert.match(c.outcome.message ?? '', /is not a valid task: .*:3:\d+: error: /);
    assert.equal((await ctl.list()).jobs.length, before);
  });
  it('a task the configured GCP controller would refuse (ports) is refused before a controller is started or a job recorded', async () => {
    const before = (await ctl.list()).jobs.length;
    const was = process.env.SKYDECK_JOBS_CONTROLLER;
    process.env.SKYDECK_JOBS_CONTROLLER = 'gcp';
    try {
      const c = await call(api, 'skydeck.launchManagedJob', taskFile('mj-ports', 'resources:\n  ports: 8080\nrun: python3 -m http.server 8080\n'), { confirm: false, showLogs: false });
      assert.equal(c.outcome.outcome, 'error');
      assert.match(c.outcome.message ?? '', /task 1 of the managed job cannot run on the gcp controller: resources\.ports: /);
    } finally {
      if (was === undefined) delete process.env.SKYDECK_JOBS_CONTROLLER;
      else process.env.SKYDECK_JOBS_CONTROLLER = was;
    }
    assert.equal((await ctl.list()).jobs.length, before);
  });
});
