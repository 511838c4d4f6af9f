// Launch, query, cluster info, stop, start (resume), ports, terminate, spot and GPUs through
// the real Compute client against the local fake (operations finish later, states move).
import * as assert from 'node:assert/strict';
import { TAG_CLUSTER, TAG_UID, TAG_WORKSPACE } from '../../../src/core/clouds/provider';
import { startGcpBed, runRequest, REGION, type GcpBed } from './helpers';

describe('gcp provider: lifecycle on the Compute fake', function () {
  this.timeout(30_000);
  let bed: GcpBed;
  before(async () => (bed = await startGcpBed()));
  after(async () => bed?.close());

  const inserts = () => bed.fake.model.calls.filter((c) => c.method === 'POST' && /\/instances$/.test(c.path));

  it('launches labelled instances with the ssh key, finds them by uid in any zone, and reports the head', async () => {
    const p = bed.provider();
    const req = runRequest({ numNodes: 2, clusterName: 'My.Run_1', resources: { diskSize: 77 } });
    const before = inserts().length;
    const run = await p.runInstances(req);
    assert.equal(run.created.length, 2);
    assert.deepEqual(run.resumed, []);
    const ref = { uid: req.uid, region: REGION };
    const q = await p.queryInstances(ref);
    assert.deepEqual(q.map((i) => i.id).sort(), [...run.created].sort());
    for (const i of q) {
      assert.deepEqual([i.tags[TAG_UID], i.tags[TAG_CLUSTER], i.tags[TAG_WORKSPACE]], [req.uid, 'My.Run_1', 'ws-test'], 'exact tags come back');
      assert.equal(i.zone, 'us-central1-a');
      assert.equal(i.region, REGION);
      assert.equal(i.instanceType, 'e2-standard-2');
      assert.ok(['pending', 'running'].includes(i.status));
    }
    const bodies = inserts().slice(before).map((c) => c.body as Record<string, any>);
    assert.equal(bodies.length, 2);
    const b = bodies[0];
    assert.equal(b.labels[TAG_CLUSTER], 'my-run_1', 'label values are lowercased, other characters become "-"');
    assert.equal(b.labels[TAG_UID], req.uid);
    assert.match(b.metadata.items.find((m: any) => m.key === 'ssh-keys').value, /^skydeck:ssh-ed25519 \S+/);
    assert.equal(b.metadata.items.find((m: any) => m.key === 'enable-oslogin').value, 'FALSE');
    assert.equal(b.disks[0].initializeParams.diskSizeGb, '77');
    assert.equal(b.scheduling.provisioningModel, 'STANDARD');
    assert.equal(bodies.filter((x) => x.labels['skydeck-head'] === 'true').length, 1, 'exactly one head');

    await p.waitInstances(ref, 'running', 5000);
    const info = await p.clusterInfo(ref);
    assert.equal(info.head.id, run.created[0]);
    assert.equal(info.workers.length, 1);
    assert.equal(info.sshUser, 'skydeck');
    assert.ok(info.sshKeyPath?.startsWith(bed.dir));
    assert.match(info.head.address, /^203\.0\.113\.\d+$/); // never connected to
    const fw = bed.fake.model.firewalls.get(`skydeck-${req.uid}`) as Record<string, any>;
    assert.deepEqual(fw.allowed, [{ IPProtocol: 'tcp', ports: ['22'] }]);
    assert.deepEqual(fw.targetTags, [`skydeck-${req.uid}`]);
    await p.terminateInstances(ref);
    await p.waitInstances(ref, 'terminated', 5000);
  });

  it('stops (TERMINATED = stopped), resumes by starting, opens ports, and deletes with its firewall rule', async () => {
    const p = bed.provider();
    const req = runRequest({ zone: 'us-central1-b' });
    const ref = { uid: req.uid, region: REGION };
    const [id] = (await p.runInstances(req)).created;
    await p.waitInstances(ref, 'running', 5000);
    await p.stopInstances(ref);
    assert.deepEqual((await p.queryInstances(ref)).map((i) => i.status), ['stopping']);
    await p.waitInstances(ref, 'stopped', 5000);
    assert.equal(bed.fake.model.instance('us-central1-b', id).status, 'TERMINATED');

    const again = await p.runInstances(req);
    assert.deepEqual(again, { created: [], resumed: [id] }, 'a stopped cluster is started, not re-created');
    await p.waitInstances(ref, 'running', 5000);
    await p.stopInstances(ref);
    await p.waitInstances(ref, 'stopped', 5000);
    await p.startInstances(ref);
    await p.waitInstances(ref, 'running', 5000);

    await p.openPorts(ref, [{ from: 8888, to: 8888 }, { from: 9000, to: 9010 }]);
    await p.openPorts(ref, [{ from: 8888, to: 8888 }]); // already open: no patch
    const fw = bed.fake.model.firewalls.get(`skydeck-${req.uid}`) as Record<string, any>;
    assert.deepEqual([...fw.allowed[0].ports].sort(), ['22', '8888', '9000-9010']);
    assert.equal(bed.fake.model.calls.filter((c) => c.method === 'PATCH').length, 1);

    await p.terminateInstances(ref);
    const during = await p.queryInstances(ref);
    assert.ok(during.every((i) => i.status === 'stopping'), 'a VM being deleted shows STOPPING: still live, not yet proven gone');
    await p.waitInstances(ref, 'terminated', 5000);
    assert.deepEqual(await p.queryInstances(ref), [], 'deleted VMs vanish from listings');
    assert.equal(bed.fake.model.firewalls.has(`skydeck-${req.uid}`), false);
  });

  it('launches spot VMs that are deleted on preemption', async () => {
    const p = bed.provider();
    const req = runRequest({ useSpot: true, zone: 'us-central1-c' });
    const ref = { uid: req.uid, region: REGION };
    const [id] = (await p.runInstances(req)).created;
    const sched = bed.fake.model.instance('us-central1-c', id).scheduling;
    assert.deepEqual(sched, { provisioningModel: 'SPOT', instanceTerminationAction: 'DELETE', onHostMaintenance: 'TERMINATE', automaticRestart: false });
    await p.waitInstances(ref, 'running', 5000);
    bed.fake.model.preempt('us-central1-c', id);
    await p.waitInstances(ref, 'terminated', 5000);
    await p.terminateInstances(ref); // nothing left but the firewall rule
    assert.equal(bed.fake.model.firewalls.has(`skydeck-${req.uid}`), false);
  });

  it('attaches T4s to N1 machines (no live migration) and picks g2 for L4', async () => {
    const p = bed.provider();
    const t4 = runRequest({ placement: { cloud: 'gcp', region: REGION, zone: 'us-central1-a', useSpot: false }, resources: { accelerators: [{ name: 'T4', count: 1 }] } });
    const [a] = (await p.runInstances(t4)).created;
    const ia = bed.fake.model.instance('us-central1-a', a) as Record<string, any>;
    assert.equal(ia.machineType, 'n1-standard-4');
    assert.deepEqual(ia.guestAccelerators, [{ acceleratorType: 'zones/us-central1-a/acceleratorTypes/nvidia-tesla-t4', acceleratorCount: 1 }]);
    assert.equal(ia.scheduling.onHostMaintenance, 'TERMINATE');
    const l4 = runRequest({ placement: { cloud: 'gcp', region: REGION, zone: 'us-central1-a', useSpot: false }, resources: { accelerators: [{ name: 'L4', count: 1 }] } });
    const [b] = (await p.runInstances(l4)).created;
    const ib = bed.fake.model.instance('us-central1-a', b) as Record<string, any>;
    assert.equal(ib.machineType, 'g2-standard-4');
    assert.equal(ib.guestAccelerators, undefined);
    const q = await p.queryInstances({ uid: t4.uid });
    assert.ok(q[0].costPerHour! > 0.5, 'the T4 price is in the cost hint');
    for (const r of [t4, l4]) await p.terminateInstances({ uid: r.uid });
  });

  it('lists every Skydeck-labelled instance of the project (all zones), and only those', async () => {
    const p = bed.provider();
    const r1 = runRequest({ zone: 'us-central1-a' });
    const r2 = runRequest({ zone: 'europe-west4-a', placement: { cloud: 'gcp', region: 'europe-west4', zone: 'europe-west4-a', instanceType: 'e2-standard-2', useSpot: false } });
    await p.runInstances(r1);
    await p.runInstances(r2);
    // Someone else's VM, without Skydeck labels.
    bed.fake.model.instances.set('us-central1-a/other', { name: 'other', zone: 'us-central1-a', status: 'RUNNING', labels: { team: 'x' }, machineType: 'e2-standard-2', scheduling: {} });
    const tagged = (await p.listTagged()).instances;
    const uids = new Set(tagged.map((i) => i.tags[TAG_UID]));
    assert.ok(uids.has(r1.uid) && uids.has(r2.uid));
    assert.ok(!tagged.some((i) => i.id === 'other'));
    assert.deepEqual(tagged.find((i) => i.tags[TAG_UID] === r2.uid)?.zone, 'europe-west4-a');
    // The sweep ends a leaked cluster by instance id: the last one takes the firewall rule along.
    for (const r of [r1, r2]) {
      const ids = (await p.queryInstances({ uid: r.uid })).map((i) => i.id);
      await p.terminateInstances({ uid: r.uid }, ids);
      assert.equal(bed.fake.model.firewalls.has(`skydeck-${r.uid}`), false);
    }
  });
});
