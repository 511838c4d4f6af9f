// An Azure cluster reused with Blob containers its identity was not granted at launch: ops add
// the grants (nothing taken away), and the down deletes every grant of the uid with proof.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StateStore } from '../../../src/core/state';
import { downWithProof, makeEnv, provision, realClock, type Bootstrap, type ProvisionEnv } from '../../../src/core/provision';
import { ROLE_BLOB_CONTRIBUTOR } from '../../../src/core/clouds/azure/bucketGrants';
import { planBuckets } from '../../../src/core/ops/bucketPlan';
import { grantPlannedBuckets } from '../../../src/core/ops/bucketGrant';
import { OpsError } from '../../../src/core/ops/errors';
import type { OpsContext } from '../../../src/core/ops';
import { task } from '../../unit/task/helpers';
import { runRequest, startAzureBed, type AzureBed } from './helpers';
import { groupName } from '../../../src/core/clouds/azure';
import { staticProviders, TAG_UID, type BucketAccess, type Placement } from '../../../src/core/clouds/provider';

const noBootstrap: Bootstrap = async () => ({ workdir: '/tmp' });

describe('azure: a reused cluster is granted the new containers, and its down deletes them all', function () {
  this.timeout(30_000);
  let bed: AzureBed;
  let store: StateStore;
  let env: ProvisionEnv;
  let ctx: OpsContext;
  const sub = () => bed.fake.model.subscription;
  const accountId = `/resourceGroups/data-rg/providers/Microsoft.Storage/storageAccounts/dataacct`;
  const grantsOn = (container: string) => [...bed.fake.model.resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleAssignments'
    && r.properties.roleDefinitionId.endsWith(`/${ROLE_BLOB_CONTRIBUTOR}`) && String(r.properties.scope).endsWith(`/containers/${container}`));
  const placement = (access: BucketAccess[]): Placement => ({ cloud: 'azure', region: 'eastus', instanceType: 'Standard_D2s_v5', useSpot: false, bucketAccess: access });

  before(async function () {
    bed = await startAzureBed(this);
    const m = bed.fake.model;
    m.put({ id: m.groupId('data-rg'), name: 'data-rg', type: 'Microsoft.Resources/resourceGroups', location: 'eastus', tags: {}, properties: { provisioningState: 'Succeeded' } });
    m.put({ id: `/subscriptions/${sub()}${accountId}`, name: 'dataacct', type: 'Microsoft.Storage/storageAccounts', location: 'eastus', tags: {}, kind: 'StorageV2', properties: { provisioningState: 'Succeeded' } });
    store = await StateStore.openWorkspace(fs.mkdtempSync(path.join(bed.dir, 'ws-')));
    const provider = bed.provider({});
    env = makeEnv({
      store, clock: realClock, progress: () => undefined, log: () => undefined,
      timing: { launchGraceMs: 2000, pollMs: 50, runningTimeoutMs: 5000, confirmTimeoutMs: 3000, reissueAfterMs: 1000, transientRetries: 2, backoffMs: 50 },
    }, provider);
    ctx = { store, providers: staticProviders(provider), progress: () => undefined, log: () => undefined, warn: () => undefined } as unknown as OpsContext;
  });
  after(async () => {
    store?.close();
    await bed?.close();
  });

  it('adds the grant on the new container, keeps the old one, and the down deletes both', async () => {
    const res = await provision(env, { name: 'reuse', numNodes: 1, bootstrap: noBootstrap, placements: [placement([{ store: 'azure', account: 'dataacct', bucket: 'old' }])] });
    assert.ok(res.ok, res.error);
    assert.equal(grantsOn('old').length, 1);
    const plan = await planBuckets(ctx, task('file_mounts:\n  /n: https://dataacct.blob.core.windows.net/fresh\n'), 'azure');
    await grantPlannedBuckets(ctx, res.row!, plan);
    assert.deepEqual([grantsOn('old').length, grantsOn('fresh').length], [1, 1]);
    await grantPlannedBuckets(ctx, res.row!, plan);
    assert.equal(grantsOn('fresh').length, 1, 'a second grant of the same container makes no second assignment');
    const down = await downWithProof(env, res.row!);
    assert.ok(down.confirmed && down.deleted, down.reason);
    assert.deepEqual([grantsOn('old').length, grantsOn('fresh').length], [0, 0]);
  });

  it('a cluster launched without Blob mounts has no identity to widen: refused, saying to relaunch', async () => {
    const res = await provision(env, { name: 'plain', numNodes: 1, bootstrap: noBootstrap, placements: [placement([])] });
    assert.ok(res.ok, res.error);
    const plan = await planBuckets(ctx, task('file_mounts:\n  /n: https://dataacct.blob.core.windows.net/fresh2\n'), 'azure');
    await assert.rejects(grantPlannedBuckets(ctx, res.row!, plan), (e: Error) => e instanceof OpsError && e.kind === 'usage' && /relaunch/.test(e.message));
    assert.equal(grantsOn('fresh2').length, 0);
    assert.ok((await downWithProof(env, res.row!)).deleted);
  });

  it('a stray cluster\'s grants (its group deleted by an autodown head, no row): listed, then deleted with proof by deleteIdentities', async () => {
    const provider = bed.provider({});
    const req = runRequest({ clusterName: 'stray', placement: placement([{ store: 'azure', account: 'dataacct', bucket: 'stray-c' }]) });
    await provider.runInstances(req);
    assert.equal(grantsOn('stray-c').length, 1);
    for (const r of bed.fake.model.under(`/subscriptions/${sub()}/resourceGroups/${groupName(req.uid)}/`)) bed.fake.model.remove(r.id);
    const listed = (await provider.listTagged()).identities ?? [];
    assert.ok(listed.some((i) => i.tags[TAG_UID] === req.uid), 'the sweep lists the grant');
    const r = await provider.deleteIdentities!({ uid: req.uid });
    assert.deepEqual([r.gone.length, r.gone[0]?.proof, r.left], [1, 'GET answers 404', []]);
    assert.equal(grantsOn('stray-c').length, 0);
    assert.ok(!((await provider.listTagged()).identities ?? []).some((i) => i.tags[TAG_UID] === req.uid));
  });
});
