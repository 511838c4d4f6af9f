// Instances in every Instance.status GCE reports (suspended, stopped vs terminated, halting
// through PENDING_STOP/DEPROVISIONING, in repair, Flex-start PENDING, and a status Skydeck does
// not know) under the provider and the core's stop/start/down with proof, over the fake.
import * as assert from 'node:assert/strict';
import { StateStore, getCluster, putCluster, type ClusterRecord } from '../../../src/core/state';
import { TAG_UID } from '../../../src/core/clouds/provider';
import {
  downWithProof, findLeaked, lookOnce, provision, refreshOne, resumeCluster, stopWithProof, type ProvisionEnv,
} from '../../../src/core/provision';
import { cloudRepair, cloudStop, cloudSuspend, putInStatus, setDeletePath, setStopPath, walkedStatuses } from '../../support/fakes/gcpFake/lifecycle';
import { providerFailure as failure } from '../../support/providerFailure';
import { startGcpBed, runRequest, PROJECT, REGION, type GcpBed, bedEnv, noBootstrap } from './helpers';

const ZONE = 'us-central1-a';

describe('gcp provider: every GCE instance status, through the core', function () {
  this.timeout(60_000);
  let bed: GcpBed;
  let store: StateStore;
  let env: ProvisionEnv;
  let gcp: ReturnType<GcpBed['provider']>;
  before(async () => {
    bed = await startGcpBed();
    ({ store, env } = await bedEnv(bed, (gcp = bed.provider({ zones: { [REGION]: [ZONE] } }))));
  });
  after(async () => {
    store?.close();
    await bed?.close();
  });
  afterEach(() => {
    setStopPath(bed.fake.model, ['STOPPING']);
    setDeletePath(bed.fake.model, ['STOPPING']);
    bed.fake.model.exhausted.clear();
  });

  const m = () => bed.fake.model;
  const up = async (name: string, numNodes = 1): Promise<ClusterRecord> => {
    const res = await provision(env, { name, numNodes, placements: [{ cloud: 'gcp', region: REGION, zone: ZONE, instanceType: 'e2-standard-2', useSpot: false }], bootstrap: noBootstrap });
    assert.ok(res.ok, res.error);
    return res.row!;
  };
  const vms = (uid: string) => [...m().instances.values()].filter((i) => i.labels[TAG_UID] === uid);
  const row = async (name: string) => (await store.read((db) => getCluster(db, name)))!;
  const calls = (verb: string, names: string[]) => m().calls.filter((c) => names.some((n) => c.path.endsWith(`/instances/${n}/${verb}`))).length;
  const statusOf = async (uid: string) => (await env.provider.queryInstances({ uid })).map((i) => i.status);

  it('a SUSPENDED cluster is resumed with instances.resume, never start (which GCE refuses for it)', async () => {
    const r = await up('susp');
    const [vm] = vms(r.uid);
    cloudSuspend(m(), ZONE, vm.name);
    assert.deepEqual(await statusOf(r.uid), ['stopping'], 'SUSPENDING');
    await env.provider.waitInstances({ uid: r.uid }, 'stopped', 5000);
    await assert.rejects(gcp.clients.post(`projects/${PROJECT}/zones/${ZONE}/instances/${vm.name}/start`), { httpStatusCode: 400 });
    const again = await env.provider.runInstances(runRequest({ uid: r.uid, clusterName: 'susp', zone: ZONE }));
    assert.deepEqual(again, { created: [], resumed: [vm.name] });
    assert.deepEqual([calls('resume', [vm.name]), calls('start', [vm.name])], [1, 1], 'one resume; the only start is the refused one above');
    await env.provider.waitInstances({ uid: r.uid }, 'running', 5000);
    // Suspended again and started through the core: resume again; a full zone fails it as capacity.
    cloudSuspend(m(), ZONE, vm.name);
    await env.provider.waitInstances({ uid: r.uid }, 'stopped', 5000);
    m().exhausted.add(ZONE);
    const full = await failure(env.provider.startInstances({ uid: r.uid }));
    assert.equal(full.kind, 'capacity');
    m().exhausted.clear();
    const res = await resumeCluster(env, await row('susp'), { bootstrap: noBootstrap });
    assert.ok(res.ok, res.error);
    assert.equal(vm.status, 'RUNNING');
    assert.equal(calls('resume', [vm.name]), 3);
    assert.ok((await downWithProof(env, await row('susp'))).deleted);
  });

  it('stop through PENDING_STOP, STOPPING and DEPROVISIONING to STOPPED is a proven stop; start brings it back', async () => {
    setStopPath(m(), ['PENDING_STOP', 'STOPPING', 'DEPROVISIONING'], 'STOPPED');
    const r = await up('stp', 2);
    const stop = await stopWithProof(env, r);
    assert.ok(stop.confirmed, stop.reason);
    await env.provider.waitInstances({ uid: r.uid }, 'stopped', 5000);
    // The fake's own record of the walk (a poll from here could miss a step on a loaded machine).
    for (const i of vms(r.uid)) assert.deepEqual(walkedStatuses(i), ['PENDING_STOP', 'STOPPING', 'DEPROVISIONING', 'STOPPED']);
    assert.equal((await row('stp')).status, 'STOPPED');
    const res = await resumeCluster(env, await row('stp'), { bootstrap: noBootstrap });
    assert.ok(res.ok, res.error);
    assert.equal(calls('start', vms(r.uid).map((i) => i.name)), 2);
    assert.ok((await downWithProof(env, await row('stp'))).deleted);
  });

  it('a VM GCE stopped by itself (STOPPED or TERMINATED) makes the UP row STOPPED on refresh', async () => {
    for (const to of ['STOPPED', 'TERMINATED'] as const) {
      const r = await up(`self-${to.toLowerCase()}`);
      cloudStop(m(), ZONE, vms(r.uid)[0].name, to, true);
      await env.provider.waitInstances({ uid: r.uid }, 'stopped', 5000);
      const out = await refreshOne(env, r);
      assert.equal(out.row?.status, 'STOPPED', `${to}: ${out.message}`);
      assert.ok((await downWithProof(env, await row(r.name))).deleted);
    }
  });

  it('down is proven only once the VM is absent: DEPROVISIONING is not gone', async () => {
    setDeletePath(m(), ['STOPPING', 'DEPROVISIONING', 'DEPROVISIONING', 'DEPROVISIONING']);
    const r = await up('dep');
    const down = await downWithProof(env, r);
    assert.ok(down.confirmed && down.deleted, down.reason);
    assert.deepEqual(vms(r.uid), [], 'the proof came after the VM vanished, not while it was DEPROVISIONING');
    assert.ok(down.proof.queries > 1);
  });

  it('REPAIRING and Flex-start PENDING VMs are alive: stop asks them and proves it', async () => {
    const r = await up('rep', 2);
    const [a, b] = vms(r.uid);
    cloudRepair(m(), ZONE, a.name, 1000);
    putInStatus(m(), ZONE, b.name, 'PENDING');
    assert.deepEqual(await statusOf(r.uid), ['pending', 'pending']);
    const stop = await stopWithProof(env, r);
    assert.ok(stop.confirmed, stop.reason);
    assert.deepEqual([calls('stop', [a.name]), calls('stop', [b.name])], [1, 1]);
    assert.ok((await downWithProof(env, await row('rep'))).deleted);
  });

  it('a status Skydeck does not know is "unknown": live, never proof of stopped or gone, and launch refuses to guess', async () => {
    const r = await up('odd');
    const [vm] = vms(r.uid);
    putInStatus(m(), ZONE, vm.name, 'HIBERNATING');
    assert.deepEqual(await statusOf(r.uid), ['unknown']);
    await new Promise((res) => setTimeout(res, env.timing.launchGraceMs));
    for (const goal of ['terminated', 'stopped'] as const) {
      const look = await lookOnce(env, await row('odd'), goal);
      assert.deepEqual([look.confirmed, look.pending.map((i) => i.status)], [false, ['unknown']], goal);
    }
    // A stray (no row) in an unknown status is a live leak to the sweep, not a gone one.
    const stray = runRequest({ clusterName: 'stray-odd', zone: ZONE });
    const [sv] = (await env.provider.runInstances(stray)).created;
    putInStatus(m(), ZONE, sv, 'HIBERNATING');
    const sweep = await findLeaked([env], 'ws-test');
    assert.deepEqual(sweep.thisWorkspace.map((l) => [l.uid, l.instance.status]), [[stray.uid, 'unknown']]);
    await env.provider.terminateInstances({ uid: stray.uid });
    const relaunch = await failure(env.provider.runInstances(runRequest({ uid: r.uid, clusterName: 'odd', zone: ZONE })));
    assert.equal(relaunch.kind, 'transient');
    assert.match(relaunch.message, /status HIBERNATING/);
    // A STOPPED row whose VM shows an unknown status is not kept as stopped.
    await store.write((db) => putCluster(db, { ...r, status: 'STOPPED' }));
    assert.equal((await refreshOne(env, await row('odd'))).row?.status, 'INIT');
    // Stop asks GCE (which decides); down deletes it and proves it by absence.
    const stop = await stopWithProof(env, await row('odd'));
    assert.ok(stop.confirmed, stop.reason);
    assert.equal(calls('stop', [vm.name]), 1);
    putInStatus(m(), ZONE, vm.name, 'HIBERNATING');
    assert.ok((await downWithProof(env, await row('odd'))).deleted);
    assert.deepEqual(vms(r.uid), []);
  });
});
