// Issue 12.2 and 12.4 on the GCE fake, which keeps each project's state apart as GCE does:
// a cluster records its project; after "gcloud config set project OTHER", refresh, down and
// the sweep still ask the cluster's own project, and a project that cannot be read is an
// error on the cluster, never "no instances".
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StateStore, getCluster } from '../../../src/core/state';
import { downWithProof, findLeaked, makeEnv, provision, refreshOne, realClock, type ProvisionEnv } from '../../../src/core/provision';
import { PROJECT, REGION, runRequest, startGcpBed, type GcpBed, noBootstrap } from './helpers';

const OTHER = 'skydeck-other';
const timing = { launchGraceMs: 500, pollMs: 50, runningTimeoutMs: 5000, confirmTimeoutMs: 3000, reissueAfterMs: 1000, transientRetries: 1, backoffMs: 50 };

describe('gcp: cluster projects (issue 12.2) and the sweep (issue 12.4)', function () {
  this.timeout(60_000);
  let bed: GcpBed;
  let store: StateStore;

  before(async () => {
    bed = await startGcpBed();
    bed.fake.addProject(OTHER);
    store = await StateStore.openWorkspace(fs.mkdtempSync(path.join(bed.dir, 'ws-')));
  });
  after(async () => {
    store?.close();
    await bed?.close();
  });

  const envIn = (project: string): ProvisionEnv =>
    makeEnv({ store, clock: realClock, timing, progress: () => undefined, log: () => undefined }, bed.provider({ project, zones: { [REGION]: ['us-central1-a'] } }));
  const row = (name: string) => store.read((db) => getCluster(db, name));

  it('issue 12.2: after switching project, refresh and down ask the cluster\'s own project; an unreadable project is an error, not gone', async () => {
    const home = envIn(PROJECT);
    const res = await provision(home, { name: 'p1', numNodes: 1, placements: [{ cloud: 'gcp', region: REGION, instanceType: 'e2-standard-2', useSpot: false }], bootstrap: noBootstrap });
    assert.ok(res.ok, res.error);
    assert.equal(res.row!.account, PROJECT);
    assert.equal(bed.fake.projects.get(OTHER)!.instances.size, 0);

    const away = envIn(OTHER); // gcloud config set project skydeck-other
    await new Promise((r) => setTimeout(r, timing.launchGraceMs + 100));
    const r = await refreshOne(away, (await row('p1'))!);
    assert.equal(r.action, 'unchanged', r.message);
    assert.deepEqual(r.instances!.map((i) => i.status), ['running'], 'listed in the cluster\'s project, not the configured one');

    // The project cannot be read any more (deleted, or access removed): unknown, row kept.
    const model = bed.fake.projects.get(PROJECT)!;
    bed.fake.projects.delete(PROJECT);
    try {
      const lost = await refreshOne(away, (await row('p1'))!);
      assert.equal(lost.action, 'error');
      assert.match(lost.message!, /projects\/skydeck-test/);
      const d = await downWithProof(away, (await row('p1'))!);
      assert.equal(d.deleted, false);
      assert.ok(await row('p1'), 'row kept');
      const sweep = await findLeaked([away], 'ws');
      assert.deepEqual(sweep.swept.map((s) => s.account), [OTHER]);
      assert.deepEqual(sweep.errors.map((e) => [e.cloud, e.account]), [['gcp', PROJECT]]);
    } finally {
      bed.fake.projects.set(PROJECT, model);
    }

    // Down from the other project's configuration ends it in its own project, with proof.
    const down = await downWithProof(away, (await row('p1'))!);
    assert.ok(down.confirmed && down.deleted, down.reason);
    assert.equal([...model.instances.values()].length, 0);
  });

  it('issue 12.2: the sweep lists the configured project and every project a cluster records; a stray in either is found', async () => {
    const home = envIn(PROJECT);
    const res = await provision(home, { name: 'p2', numNodes: 1, placements: [{ cloud: 'gcp', region: REGION, instanceType: 'e2-standard-2', useSpot: false }], bootstrap: noBootstrap });
    assert.ok(res.ok, res.error);
    const strayReq = runRequest({ clusterName: 'stray' });
    await bed.provider({ project: PROJECT }).runInstances({ ...strayReq, workspaceId: 'ws-test' });
    const sweep = await findLeaked([envIn(OTHER)], 'ws-test');
    assert.deepEqual(sweep.swept.map((s) => s.account).sort(), [PROJECT, OTHER].sort());
    assert.deepEqual(sweep.errors, []);
    assert.deepEqual(sweep.thisWorkspace.map((l) => [l.uid, l.account]), [[strayReq.uid, PROJECT]]);
    assert.ok((await downWithProof(home, (await row('p2'))!)).deleted);
    await bed.provider({ project: PROJECT }).terminateInstances({ uid: strayReq.uid, account: PROJECT });
  });

  it('issue 12.4: a zone GCP reports unreachable is named unknown by the sweep, the rest is still listed', async () => {
    bed.fake.unreachable.add('europe-west4-a');
    try {
      const sweep = await findLeaked([envIn(PROJECT)], 'ws');
      assert.deepEqual(sweep.errors.map((e) => [e.cloud, e.account, e.region]), [['gcp', PROJECT, 'europe-west4-a']]);
      assert.ok(sweep.swept[0].listed.includes('us-central1-a'));
    } finally {
      bed.fake.unreachable.clear();
    }
  });
});
