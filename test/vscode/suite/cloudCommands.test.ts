// Stop, Start, Retry Down, Find Leaked Instances and Terminate Leaked Instance in a real
// extension host, on the fake cloud standing in for aws (as launchCancelCloud.test.ts does).
// Its instances are this machine: the cluster's agent runs locally (localAgentBootstrap), so a
// launch really runs its job. One cluster serves the describe; Retry Down, last, tears it down.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import type { OpsContext } from '../../../src/core/ops';
import { localAgentBootstrap } from '../../../src/core/ops/agentBootstrap';
import { localBaseDir } from '../../../src/core/ops/context';
import { staticProviders, TAG_CLUSTER, TAG_UID, TAG_WORKSPACE } from '../../../src/core/clouds/provider';
import { scaledClock } from '../../../src/core/provision/clock';
import { getCluster, workspaceId, type ClusterRecord } from '../../../src/core/state';
import type { ClusterNode } from '../../../src/ui/tree/clusterNode';
import type { LeakedGroupNode, LeakedInstanceNode } from '../../../src/ui/tree/leakNodes';
import { FakeProvider } from '../../support/fakeCloud/fakeProvider';
import { isLiveStatus } from '../../support/fakeCloud/model';
import { assertOk, call } from './probeCalls';
import { until } from './until';

const TASK = 'name: cloud-cmds\nresources:\n  cloud: aws\nrun: echo "ran on the fake cloud"\n';

describe('cloud commands on the fake cloud (extension host)', function () {
  this.timeout(120_000);
  let api: SkydeckApi;
  let ops: OpsContext;
  let saved: Pick<OpsContext, 'providers' | 'clock' | 'timing' | 'bootstrap'>;
  let cloud: FakeProvider;
  let taskFile: string;
  let row: ClusterRecord | undefined;
  const cluster = `vsc-cloud-${process.pid}-${Date.now().toString(36)}`;

  const uidOf = () => api.clustersModel.cluster(cluster)?.uid;
  const statuses = (uid: string | undefined) => cloud.truth().filter((i) => i.tags[TAG_UID] === uid).map((i) => i.status);

  async function clusterNode(): Promise<ClusterNode> {
    await api.clustersModel.reload();
    const node = (await api.testTree!.getChildren()).find((n): n is ClusterNode => n.kind === 'cluster' && n.cluster.name === cluster);
    assert.ok(node, `the Clusters view shows no node for ${cluster}`);
    return node;
  }

  before(async () => {
    api = (await vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck')!.activate())!;
    assert.ok(api.testOps && api.testTree && api.testProbe, 'activate() exposes the test API under SKYDECK_TEST=1');
    ops = await api.testOps();
    saved = { providers: ops.providers, clock: ops.clock, timing: ops.timing, bootstrap: ops.bootstrap };
    const clock = scaledClock(100);
    cloud = new FakeProvider({ cloud: 'aws', clock });
    // Model time runs 100x: the fake's boot and stop delays (seconds) pass in tens of ms.
    Object.assign(ops, { providers: staticProviders(cloud), clock, timing: { confirmTimeoutMs: 5 * 60_000 }, bootstrap: localAgentBootstrap(ops) });
    taskFile = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, `cloud-cmds-${process.pid}.sky.yaml`);
    fs.writeFileSync(taskFile, TASK);
    const r = await vscode.commands.executeCommand<{ jobId: number } | undefined>('skydeck.launchTask', vscode.Uri.file(taskFile), { cluster, showLogs: false });
    assert.equal(r?.jobId, 1, 'launchTask on the fake cloud failed: see the Skydeck log');
    row = await ops.store.read((db) => getCluster(db, cluster));
    assert.deepEqual(statuses(row?.uid), ['running']);
  });

  after(async () => {
    await api?.clustersModel.reload().catch(() => undefined);
    if (cloud) cloud.storage.save({ ...cloud.storage.load(), faults: [] });
    if (api?.clustersModel.cluster(cluster)) await vscode.commands.executeCommand('skydeck.downCluster', cluster, { confirm: false });
    // A real cloud's terminate ends the head's agent with the machine; here it runs on this one.
    if (row) {
      await ops.connections.client(row).shutdown().catch(() => undefined);
      await ops.connections.forget(cluster);
      fs.rmSync(localBaseDir(ops.workspaceRoot, cluster), { recursive: true, force: true });
    }
    if (ops) Object.assign(ops, saved);
    if (taskFile) fs.rmSync(taskFile, { force: true });
  });

  it('Stop stops the instances with proof and shows STOPPED; Start resumes them and the agent answers again', async () => {
    const uid = row!.uid;
    const stopped = await call(api, 'skydeck.stopCluster', await clusterNode(), { confirm: false });
    assertOk(stopped);
    assert.ok(stopped.notices.some((n) => n.message === `Skydeck: ${cluster} is stopped.`), JSON.stringify(stopped.notices));
    assert.equal(api.clustersModel.cluster(cluster)?.status, 'STOPPED');
    await until('the instance stopped in the cloud', 10_000, () => (statuses(uid).join() === 'stopped' ? true : undefined));

    const started = await call<{ status: string }>(api, 'skydeck.startCluster', await clusterNode());
    assertOk(started);
    assert.equal(started.result?.status, 'UP');
    assert.ok(started.notices.some((n) => n.message === `Skydeck: ${cluster} is up.`), JSON.stringify(started.notices));
    assert.equal(api.clustersModel.cluster(cluster)?.status, 'UP');
    assert.equal(uidOf(), uid, 'started in place, not relaunched');
    assert.deepEqual(statuses(uid), ['running']);
    // The agent is reachable again: the view lists the job that ran before the stop.
    assert.equal(api.clustersModel.errorOf(cluster), undefined);
    assert.equal(api.clustersModel.job(cluster, 1)?.status, 'SUCCEEDED');
  });

  it('Find Leaked Instances lists an instance no row owns; Terminate Leaked Instance on its node terminates it with proof', async () => {
    const wsId = await ops.store.write((db) => workspaceId(db));
    const orphan = randomUUID();
    // Tagged for this workspace, by a launch whose row is gone (as after a crash before intent was saved).
    const { created } = await cloud.runInstances({
      uid: orphan, clusterName: 'orphan', workspaceId: wsId, numNodes: 1, placement: { cloud: 'aws', region: 'fake-1', useSpot: false },
      tags: { [TAG_CLUSTER]: 'orphan', [TAG_UID]: orphan, [TAG_WORKSPACE]: wsId },
    });
    assert.equal(created.length, 1);
    const found = await call<{ thisWorkspace: { instance: { id: string } }[]; errors: unknown[] }>(api, 'skydeck.findLeaked');
    assertOk(found);
    assert.deepEqual(found.result?.thisWorkspace.map((l) => l.instance.id), created, 'the sweep lists exactly the planted instance (the cluster\'s own is owned)');
    assert.deepEqual(found.result?.errors, []);
    assert.ok(found.notices.some((n) => n.level === 'warning' && /found 1 leaked instance/.test(n.message)), JSON.stringify(found.notices));

    // The node the view shows under "Leaked instances", as its context menu passes it.
    const group = (await api.testTree!.getChildren()).find((n): n is LeakedGroupNode => n.kind === 'leaks');
    assert.ok(group, 'no "Leaked instances" node in the Clusters view');
    const node = (await api.testTree!.getChildren(group)).find((n): n is LeakedInstanceNode => n.kind === 'leak' && n.leak.instance.id === created[0]);
    assert.ok(node, `no node for ${created[0]} under "Leaked instances"`);

    const term = await call<{ confirmed: boolean }>(api, 'skydeck.terminateLeaked', node, { confirm: false });
    assertOk(term);
    assert.equal(term.result?.confirmed, true);
    assert.ok(term.notices.some((n) => n.message === `Skydeck: terminated ${created[0]}.`), JSON.stringify(term.notices));
    assert.ok(!isLiveStatus(cloud.truth().find((i) => i.id === created[0])!.status), 'the instance is still live in the cloud');
    assert.equal(api.clustersModel.leaks.instances().length, 0, 'the terminated instance is still listed');
    assert.deepEqual(statuses(row!.uid), ['running'], 'the cluster\'s own instance was touched');
  });

  it('a Down the cloud refuses leaves the row marked; Retry Down on that node then tears it down with proof', async () => {
    const uid = row!.uid;
    cloud.inject({ op: 'terminateInstances', at: 'before', effect: 'auth', times: -1 });
    const failed = await call(api, 'skydeck.downCluster', cluster, { confirm: false });
    assert.equal(failed.outcome.outcome, 'error', 'Down succeeded although the cloud refused to terminate');
    assert.match(failed.outcome.message ?? '', /could not confirm .* terminated/);
    assert.deepEqual(statuses(uid), ['running']);
    const node = await clusterNode();
    assert.match(node.contextValue ?? '', /:down-unconfirmed/, 'the node does not offer Retry Down');

    // The cloud answers again (the user logged in anew).
    cloud.storage.save({ ...cloud.storage.load(), faults: [] });
    const retried = await call<{ cleaned: boolean; uid: string }>(api, 'skydeck.retryDown', node, { confirm: false });
    assertOk(retried);
    assert.deepEqual(retried.result && { cleaned: retried.result.cleaned, uid: retried.result.uid }, { cleaned: true, uid });
    assert.ok(statuses(uid).every((s) => !isLiveStatus(s)), `instances still live: ${statuses(uid).join()}`);
    await api.clustersModel.reload();
    assert.equal(api.clustersModel.cluster(cluster), undefined, 'the row is still there after a confirmed Retry Down');
  });
});
