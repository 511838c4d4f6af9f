// Issue 20 in a real extension host: what clusters cost, as the Clusters view, the status bar and
// the idle warning show it. Two clusters on the fake cloud standing in for aws (as
// cloudCommands.test.ts), each with an instance type of the shipped AWS table, so its price is
// known here: c6i.xlarge $0.17/h and c6i.2xlarge $0.34/h. Their agents run on this machine.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import type { OpsContext } from '../../../src/core/ops';
import { localAgentBootstrap } from '../../../src/core/ops/agentBootstrap';
import { localBaseDir } from '../../../src/core/ops/context';
import { staticProviders } from '../../../src/core/clouds/provider';
import { DEFAULT_DISK_GB } from '../../../src/core/clouds/nodeShape';
import { scaledClock, type Clock } from '../../../src/core/provision/clock';
import { getCluster, type ClusterRecord } from '../../../src/core/state';
import { formatUsd } from '../../../src/core/cost';
import { DISK_USD_PER_GB_MONTH, HOURS_PER_MONTH } from '../../../src/core/cost/shippedDates';
import type { ClusterNode } from '../../../src/ui/tree/clusterNode';
import type { Notice } from '../../../src/ui/testProbe';
import { FakeProvider } from '../../support/fakeCloud/fakeProvider';
import { assertOk, call } from './probeCalls';
import { until } from './until';

const PRICE = { 'c6i.xlarge': 0.17, 'c6i.2xlarge': 0.34 };
const task = (type: keyof typeof PRICE, run: string) => `name: cost-${type.replace('.', '-')}\nresources:\n  cloud: aws\n  instance_type: ${type}\nrun: ${run}\n`;
const HOUR = 3600_000;

describe('issue 20: cost in the Clusters view, the status bar and the idle warning (extension host, fake cloud)', function () {
  this.timeout(180_000);
  let api: SkydeckApi;
  let ops: OpsContext;
  let saved: Pick<OpsContext, 'providers' | 'clock' | 'timing' | 'bootstrap'>;
  let frozen: number | undefined;
  const rows: ClusterRecord[] = [];
  const files: string[] = [];
  const tag = `${process.pid}-${Date.now().toString(36)}`;
  // idle: its one job ends at once; busy: its job sleeps until cancelled.
  const idle = `vsc-cost-idle-${tag}`;
  const busy = `vsc-cost-busy-${tag}`;
  const config = () => vscode.workspace.getConfiguration('skydeck');

  const statusText = () => api.testProbe!.statusBar?.text;
  const idleNotices = (cluster: string) => api.testProbe!.notices.filter((n) => n.level === 'warning' && n.message.startsWith(`Cluster ${cluster} has run no job`));

  async function clusterNode(name: string): Promise<ClusterNode> {
    const node = (await api.testTree!.getChildren()).find((n): n is ClusterNode => n.kind === 'cluster' && n.cluster.name === name);
    assert.ok(node, `the Clusters view shows no node for ${name}`);
    return node;
  }

  async function launch(name: string, type: keyof typeof PRICE, run: string): Promise<void> {
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, `${name}.sky.yaml`);
    fs.writeFileSync(file, task(type, run));
    files.push(file);
    const r = await vscode.commands.executeCommand<{ jobId: number } | undefined>('skydeck.launchTask', vscode.Uri.file(file), { cluster: name, showLogs: false });
    assert.equal(r?.jobId, 1, `launching ${name} on the fake cloud failed: see the Skydeck log`);
    const row = await ops.store.read((db) => getCluster(db, name));
    assert.ok(row, `no row for ${name}`);
    rows.push(row);
  }

  before(async () => {
    api = (await vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck')!.activate())!;
    assert.ok(api.testOps && api.testTree && api.testProbe, 'activate() exposes the test API under SKYDECK_TEST=1');
    ops = await api.testOps();
    saved = { providers: ops.providers, clock: ops.clock, timing: ops.timing, bootstrap: ops.bootstrap };
    // Model time runs 100x (the fake's boot and stop delays pass in tens of ms); a test may
    // freeze it to read spend at a chosen instant.
    const scaled = scaledClock(100);
    const clock: Clock = { now: () => frozen ?? scaled.now(), sleep: (ms, s) => scaled.sleep(ms, s) };
    const cloud = new FakeProvider({ cloud: 'aws', clock: scaled });
    Object.assign(ops, { providers: staticProviders(cloud), clock, timing: { confirmTimeoutMs: 5 * 60_000 }, bootstrap: localAgentBootstrap(ops) });
    await api.clustersModel.reload();
    const billed = api.clustersModel.all.filter((c) => c.provider !== 'local' && c.provider !== 'ssh');
    assert.deepEqual(billed.map((c) => c.name), [], 'another suite left a billed cluster in this workspace: the totals below would include it');
    await launch(idle, 'c6i.xlarge', 'echo idle from now on');
    await launch(busy, 'c6i.2xlarge', 'sleep 600');
    await until(`${idle}'s job to end`, 30_000, async () => {
      await api.clustersModel.reload();
      return api.clustersModel.job(idle, 1)?.status === 'SUCCEEDED' ? true : undefined;
    });
  });

  after(async () => {
    frozen = undefined;
    if (api?.testProbe) api.testProbe.respond = undefined;
    await config().update('cost.idleWarningMinutes', undefined, vscode.ConfigurationTarget.Global);
    await api?.clustersModel.reload().catch(() => undefined);
    for (const row of rows) {
      if (api.clustersModel.cluster(row.name)) await vscode.commands.executeCommand('skydeck.downCluster', row.name, { confirm: false });
      // A real cloud's terminate ends the head's agent with the machine; here it runs on this one.
      await ops.connections.client(row).shutdown().catch(() => undefined);
      await ops.connections.forget(row.name);
      fs.rmSync(localBaseDir(ops.workspaceRoot, row.name), { recursive: true, force: true });
    }
    if (ops) Object.assign(ops, saved);
    for (const f of files) fs.rmSync(f, { force: true });
  });

  it('each cluster row shows its exact $/h and the spend so far; the status bar shows their sum', async () => {
    const [a, b] = rows;
    // Ten model hours and a bit after the later launch: spend = price × running time, nothing stopped yet.
    frozen = Math.max(a.launched_at, b.launched_at) + 10 * HOUR;
    try {
      await api.clustersModel.reload();
      const spend = (r: ClusterRecord, usd: number) => formatUsd((usd * (frozen! - r.launched_at)) / HOUR);
      const nodeA = await clusterNode(idle);
      const nodeB = await clusterNode(busy);
      assert.match(String(nodeA.description), new RegExp(`^\\$0\\.17/h · ${escape(spend(a, 0.17))} so far · `), String(nodeA.description));
      assert.match(String(nodeB.description), new RegExp(`^\\$0\\.34/h · ${escape(spend(b, 0.34))} so far · `), String(nodeB.description));
      assert.notEqual(spend(a, 0.17), '$0.00', 'ten hours of running cost something');
      // The tooltip's values are appended as escaped text: read it back as plain text.
      const tip = (nodeA.tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
      assert.match(tip, /cost: c6i\.xlarge × 1\n/, tip);
      assert.match(tip, /cost: per node: \$0\.17\/h \(shipped table, \d{4}-\d\d-\d\d\)/, tip);
      assert.match(tip, new RegExp(`cost: so far: ${escape(spend(a, 0.17))} \\(\\d+ min running, 0 min stopped\\)`), tip);
      assert.match(statusText() ?? '', / · \$0\.51\/h$/, `status bar: ${statusText()}`);
      assert.equal(api.testProbe!.statusBar?.visible, true);
    } finally {
      frozen = undefined;
    }
  });

  it('the idle warning offers Stop / Down / Set Autostop for an UP cluster with no job and no autostop, never for one running a job; Stop lowers the total', async () => {
    // 0.3 s: reloads a little apart see the idle cluster idle long enough.
    await config().update('cost.idleWarningMinutes', 0.005, vscode.ConfigurationTarget.Global);
    // The user clicks Stop on the idle warning, then Stop on the confirmation it leads to.
    api.testProbe!.respond = (n: Notice) =>
      n.message.startsWith(`Cluster ${idle} has run no job`) || n.message === `Stop cluster ${idle}?` ? 'Stop' : undefined;
    const warned = await until(`the idle warning for ${idle}`, 30_000, async () => {
      await api.clustersModel.reload();
      return idleNotices(idle)[0];
    });
    assert.deepEqual(warned.items, ['Stop', 'Down', 'Set Autostop']);
    assert.match(warned.message, new RegExp(`^Cluster ${idle} has run no job for \\d+ min and has no autostop; it is still billing \\$0\\.17/h\\.$`));
    assert.equal(api.clustersModel.jobsOf(busy)[0]?.status, 'RUNNING', `${busy}'s job is still running`);
    assert.deepEqual(idleNotices(busy), [], 'a cluster running a job is not idle');

    await until(`${idle} to be stopped through the warning`, 60_000, async () => {
      await api.clustersModel.reload();
      return api.clustersModel.cluster(idle)?.status === 'STOPPED' ? true : undefined;
    });
    // busy runs, idle's disk is still billed: 0.34 + 256 GB × $0.08/GB-month ÷ 730 h.
    const disk = (DEFAULT_DISK_GB * DISK_USD_PER_GB_MONTH.aws) / HOURS_PER_MONTH;
    assert.match(statusText() ?? '', new RegExp(` · \\$${(0.34 + disk).toFixed(2).replace('.', '\\.')}/h$`), `status bar: ${statusText()}`);
    assert.equal(idleNotices(idle).length, 1, 'one warning per cluster');
  });

  it('no idle warning for a cluster with autostop set, even with no job', async () => {
    assertOk(await call(api, 'skydeck.setAutostop', busy, { idleMinutes: 60, down: false }));
    assertOk(await call(api, 'skydeck.cancelAllJobs', busy));
    await until(`${busy}'s job to end`, 30_000, async () => {
      await api.clustersModel.reload();
      return api.clustersModel.jobsOf(busy).every((j) => j.status !== 'RUNNING' && j.status !== 'PENDING') ? true : undefined;
    });
    // Idle for many times the setting, on a cluster the warning would name were it not for autostop.
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 400));
      await api.clustersModel.reload();
    }
    const c = api.clustersModel.cluster(busy);
    assert.equal(c?.status, 'UP');
    assert.equal(c?.autostop_minutes, 60);
    assert.equal(api.clustersModel.errorOf(busy), undefined, 'its agent answered, so its jobs were seen');
    assert.deepEqual(idleNotices(busy), []);
  });

  it('Down drops a cluster from the status bar total', async () => {
    assertOk(await call(api, 'skydeck.downCluster', idle, { confirm: false }));
    await api.clustersModel.reload();
    assert.equal(api.clustersModel.cluster(idle), undefined);
    assert.match(statusText() ?? '', / · \$0\.34\/h$/, `status bar: ${statusText()}`);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
