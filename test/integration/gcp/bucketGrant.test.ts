// A GCP cluster reused with GCS buckets its account was not given at launch: ops grant them
// (the union is recorded on the row first), and the down revokes every binding, old and new.
import * as assert from 'node:assert/strict';
import { getCluster, StateStore } from '../../../src/core/state';
import { staticProviders, TAG_UID, type BucketAccess, type Placement } from '../../../src/core/clouds/provider';
import { downWithProof, provision, providerHandle, type ProvisionEnv } from '../../../src/core/provision';
import { serviceAccountEmail } from '../../../src/core/clouds/gcp/autodownIdentity';
import { BUCKET_ROLE } from '../../../src/core/clouds/gcp/bucketIam';
import { bucketAccountId } from '../../../src/core/clouds/gcp/accountTags';
import { planBuckets } from '../../../src/core/ops/bucketPlan';
import { grantPlannedBuckets } from '../../../src/core/ops/bucketGrant';
import { OpsError } from '../../../src/core/ops/errors';
import type { OpsContext } from '../../../src/core/ops';
import { task } from '../../unit/task/helpers';
import { bedEnv, noBootstrap, runRequest, startGcpBed, PROJECT, REGION, type GcpBed } from './helpers';

describe('gcp bucket identity: a reused cluster is granted the new buckets, and its down revokes them all', function () {
  this.timeout(60_000);
  let bed: GcpBed;
  let store: StateStore;
  let env: ProvisionEnv;
  let ctx: OpsContext;
  beforeEach(async () => {
    bed = await startGcpBed();
    for (const b of ['data-bkt', 'new-bkt']) bed.fake.bucketIam.addBucket(b, { uniform: true });
    const provider = bed.provider({ zones: { [REGION]: ['us-central1-a'] } });
    ({ store, env } = await bedEnv(bed, provider));
    ctx = { store, providers: staticProviders(provider), progress: () => undefined, log: () => undefined, warn: () => undefined } as unknown as OpsContext;
  });
  afterEach(async () => {
    store?.close();
    await bed?.close();
  });

  const placements = (access: BucketAccess[]): Placement[] => [{ cloud: 'gcp', region: REGION, instanceType: 'e2-standard-2', useSpot: false, bucketAccess: access }];
  const bound = (bucket: string) => bed.fake.bucketIam.members(bucket, BUCKET_ROLE);
  const up = async (access: BucketAccess[]) => {
    const res = await provision(env, { name: 'reuse', numNodes: 1, placements: placements(access), bootstrap: noBootstrap });
    assert.ok(res.ok, res.error);
    return res.row!;
  };

  it('grants the new bucket, records both on the row before the grant, and the down takes both bindings back', async () => {
    const row = await up([{ store: 'gcs', bucket: 'data-bkt' }]);
    const member = `serviceAccount:${serviceAccountEmail(bucketAccountId(row.uid), PROJECT)}`;
    const plan = await planBuckets(ctx, task('file_mounts:\n  /d: gs://data-bkt\n  /n: gs://new-bkt\n'), 'gcp');
    await grantPlannedBuckets(ctx, row, plan);
    assert.deepEqual(bound('new-bkt'), [member]);
    assert.ok(plan.find((p) => p.mount.dst === '/n')!.justGranted, 'the new mount may retry a refusal while IAM applies it');
    const cur = await store.read((db) => getCluster(db, 'reuse'))!;
    assert.deepEqual(providerHandle(cur!).placement.bucketAccess?.map((a) => a.bucket), ['data-bkt', 'new-bkt']);
    const down = await downWithProof(env, cur!);
    assert.ok(down.confirmed && down.deleted, down.reason);
    assert.deepEqual([bound('data-bkt'), bound('new-bkt')], [[], []]);
  });

  it('a cluster launched without GCS mounts has no account to widen: refused, saying to relaunch', async () => {
    const row = await up([]);
    const plan = await planBuckets(ctx, task('file_mounts:\n  /n: gs://new-bkt\n'), 'gcp');
    await assert.rejects(grantPlannedBuckets(ctx, row, plan), (e: Error) => e instanceof OpsError && e.kind === 'usage'
      && /do not run as a Skydeck bucket service account/.test(e.message) && /relaunch/.test(e.message));
    assert.deepEqual(bound('new-bkt'), []);
    assert.ok((await downWithProof(env, row)).deleted);
  });

  it('a stray cluster\'s account (instances gone without a down, no row): listed, then deleted with proof by deleteIdentities', async () => {
    const provider = bed.provider({});
    const req = runRequest({ numNodes: 1 });
    await provider.runInstances({ ...req, placement: { ...req.placement, bucketAccess: [{ store: 'gcs', bucket: 'data-bkt' }] } });
    const email = serviceAccountEmail(bucketAccountId(req.uid), PROJECT);
    for (const [k, i] of bed.fake.model.instances) if (i.labels[TAG_UID] === req.uid) bed.fake.model.instances.delete(k);
    assert.ok(((await provider.listTagged()).identities ?? []).some((i) => i.tags[TAG_UID] === req.uid), 'the sweep lists it');
    const r = await provider.deleteIdentities!({ uid: req.uid });
    assert.deepEqual(r.gone, [{ kind: 'service account', name: email, proof: 'serviceAccounts.get answers 404' }]);
    assert.equal(bed.fake.model.iam.accounts.has(email), false);
  });
});
