// Issue 17: an Azure managed-jobs controller VM makes no role assignment. Every Blob grant its
// job clusters mount with is made from this machine at submit (controllerBuckets.ts), on exactly
// the containers the job's tasks mount, a container given by `name:` included (its account is
// AZURE_STORAGE_ACCOUNT here, handed to the VM by controllerNodeEnv); the VM's subscription role
// holds roleAssignments read only, so ARM (the fake evaluates roles and scopes) refuses it any
// grant, and a controller of an older version is narrowed when this machine starts it again.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { type BucketAccess, type ClusterRef } from '../../../src/core/clouds/provider';
import { getCluster } from '../../../src/core/state';
import { down, OpsError, stop, type OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { bucketMountsOf } from '../../../src/core/ops/bucketPlan';
import { providerHandle, refOf } from '../../../src/core/provision/handle';
import { controllerTaskText } from '../../../src/core/managed/remote/controllerCluster';
import { grantControllerBuckets } from '../../../src/core/managed/remote/controllerBuckets';
import type { ControllerPlace } from '../../../src/core/managed';
import { groupName } from '../../../src/core/clouds/azure';
import { AzureClients } from '../../../src/core/clouds/azure/clients';
import { BUCKET_IDENTITY, jobsIdentityId } from '../../../src/core/clouds/azure/bucketIdentity';
import { CONTROLLER_SUBSCRIPTION_ACTIONS, CONTROLLER_SUBSCRIPTION_ROLE_NAME } from '../../../src/core/clouds/azure/controllerRole';
import { ROLE_BLOB_CONTRIBUTOR } from '../../../src/core/clouds/azure/bucketGrants';
import { roleDefinitionId } from '../../../src/core/clouds/azure/identity';
import { ImdsFake } from '../../support/fakes/azureFake/imds';
import { task } from '../../unit/task/helpers';
import { REGION, runRequest, startAzureBed, type AzureBed, bedOpsContext } from './helpers';

const PLACE: ControllerPlace = { kind: 'cloud', cloud: 'azure', region: REGION };
const DATA_RG = 'data-rg';
const RA = 'Microsoft.Authorization/roleAssignments';

describe('azure: the controller VM makes no role assignment; a job\'s containers are granted from this machine at submit (issue 17)', function () {
  this.timeout(60_000);
  let bed: AzureBed;
  let ctx: OpsContext;
  let provider: ReturnType<AzureBed['provider']>;
  let savedAccount: string | undefined;

  const m = () => bed.fake.model;
  const sub = () => m().subscription;
  const miId = (uid: string) => `/subscriptions/${sub()}/resourceGroups/${groupName(uid)}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${BUCKET_IDENTITY}`;
  const acctId = () => `/subscriptions/${sub()}/resourceGroups/${DATA_RG}/providers/Microsoft.Storage/storageAccounts/jobdata`;
  const container = (name: string) => `${acctId()}/blobServices/default/containers/${name}`;
  const blobGrants = () => [...m().resources.values()].filter((r) => r.type === RA && String(r.properties.roleDefinitionId).endsWith(`/${ROLE_BLOB_CONTRIBUTOR}`));
  const scopesOf = (principal: string) => blobGrants().filter((a) => a.properties.principalId === principal).map((a) => a.properties.scope).sort();
  const token = (principal: string) => ({ getToken: async () => ({ token: `fake-mi-token:${principal}`, expiresOnTimestamp: Date.now() + 3600_000 }) });
  const launchController = (name: string, existing?: Parameters<typeof launchOnProvider>[3]['existing']) => launchOnProvider(ctx, name, task(controllerTaskText(PLACE, 'x64')), {
    cloud: 'azure', autostop: { minutes: 10, down: false }, jobsController: true, ...(existing ? { existing } : {}),
  });
  const principals = (uid: string) => ({ own: m().get(miId(uid))!.properties.principalId as string, jobs: m().get(jobsIdentityId(sub(), uid))!.properties.principalId as string });
  /** A Blob grant PUT as the controller's identity, on `scope`, to `principal`. */
  const putAsController = (uid: string, scope: string, principal: string) => new AzureClients({ ...bed.options(), credential: token(principals(uid).own) }).resources.resources.beginCreateOrUpdateByIdAndWait(
    `${scope.slice(1)}/providers/${RA}/${crypto.randomUUID()}`, '2022-04-01',
    { properties: { roleDefinitionId: roleDefinitionId(sub(), ROLE_BLOB_CONTRIBUTOR), principalId: principal, principalType: 'ServicePrincipal' } }, { updateIntervalInMs: 10 });
  const forbidden = (e: { statusCode?: number; code?: string }) => e.statusCode === 403 && e.code === 'AuthorizationFailed';
  const named = (name: string) => `file_mounts:\n  /data: {name: ${name}, store: azure}\nrun: ls /data\n`;

  before(async function () {
    bed = await startAzureBed(this);
    savedAccount = process.env.AZURE_STORAGE_ACCOUNT;
    m().put({ id: m().groupId(DATA_RG), name: DATA_RG, type: 'Microsoft.Resources/resourceGroups', location: REGION, tags: {}, properties: { provisioningState: 'Succeeded' } });
    m().put({ id: acctId(), name: 'jobdata', type: 'Microsoft.Storage/storageAccounts', location: REGION, tags: {}, kind: 'StorageV2', properties: { provisioningState: 'Succeeded' } });
    for (const c of ['named-in', 'other']) m().put({ id: container(c), name: c, type: 'Microsoft.Storage/storageAccounts/blobServices/containers', tags: {}, properties: {} });
    provider = bed.provider();
    ctx = await bedOpsContext(bed, provider);
  });
  afterEach(() => {
    if (savedAccount === undefined) delete process.env.AZURE_STORAGE_ACCOUNT;
    else process.env.AZURE_STORAGE_ACCOUNT = savedAccount;
  });
  after(async () => {
    ctx?.store.close();
    await bed?.close();
  });

  it('the controller\'s identity gets 403 putting a Blob grant on any container (to itself or its jobs identity) or deleting one; on the VM, a container not granted at submit is refused before anything is made', async () => {
    const row = await launchController('ctl-no-grants');
    const { own, jobs } = principals(row.uid);
    for (const scope of [container('named-in'), container('other'), acctId()]) {
      for (const principal of [own, jobs]) await assert.rejects(putAsController(row.uid, scope, principal), forbidden, `${scope} to ${principal}`);
    }
    assert.deepEqual(blobGrants(), []);
    // A grant this machine made: the VM may not delete it either.
    await provider.grantBuckets(refOf(row), [{ store: 'azure', account: 'jobdata', bucket: 'other' }]);
    const [made] = blobGrants().filter((a) => a.properties.principalId === jobs);
    const asCtl = new AzureClients({ ...bed.options(), credential: token(own) });
    await assert.rejects(asCtl.resources.resources.beginDeleteByIdAndWait(made.id.slice(1), '2022-04-01', { updateIntervalInMs: 10 }), forbidden);
    assert.ok(m().get(made.id));

    // On the VM: a job cluster mounting a container its jobs identity was not granted.
    const asController = bed.provider({ credential: token(own), env: provider.controllerNodeEnv(refOf(row)), catalogDir: path.join(bed.dir, `cat-${row.uid}`) });
    const job = runRequest({ clusterName: 'job-ungranted' });
    const ungranted: BucketAccess = { store: 'azure', account: 'jobdata', bucket: 'named-in' };
    const before = m().calls.length;
    const refusal = (e: Error & { kind?: string; hint?: string }) => {
      assert.equal(e.kind, 'config');
      assert.match(e.message, /jobs identity holds no Storage Blob Data Contributor on Azure container jobdata\/named-in/);
      assert.match(e.message, /a controller VM makes no role assignment itself/);
      assert.match(e.hint ?? '', /submit the job again from your machine/);
      return true;
    };
    await assert.rejects(asController.runInstances({ ...job, placement: { ...job.placement, bucketAccess: [ungranted] } }), refusal);
    assert.deepEqual(m().calls.slice(before), [], 'nothing made, nothing granted');
    // A reuse (grantBuckets on the VM) only checks: a granted container passes, another is refused.
    await asController.runInstances({ ...job, placement: { ...job.placement, bucketAccess: [{ ...ungranted, bucket: 'other' }] } });
    const ref: ClusterRef = { uid: job.uid, account: sub() };
    assert.deepEqual((await asController.grantBuckets(ref, [{ ...ungranted, bucket: 'other' }])).changed, false);
    await assert.rejects(asController.grantBuckets(ref, [ungranted]), refusal);
    // Nor does it launch a controller (whose roles it would assign) or delete a stray's grants.
    await assert.rejects(asController.runInstances({ ...job, placement: { ...job.placement, jobsController: true } }), (e: Error & { kind?: string }) => e.kind === 'config' && /cannot launch another controller/.test(e.message));
    await assert.rejects(asController.deleteIdentities({ uid: row.uid, account: sub() }), (e: Error & { kind?: string }) => e.kind === 'config' && /deletes no role assignment/.test(e.message));
    assert.deepEqual(m().calls.slice(before).filter((c) => /roleAssignments/i.test(c.path)), [], 'the VM made and deleted no role assignment');
    await asController.terminateInstances(ref);
    await asController.waitInstances(ref, 'terminated', 10_000);
    const d = await down(ctx, 'ctl-no-grants');
    assert.ok(d.cleaned, d.notes.join('\n'));
    assert.deepEqual(blobGrants(), []);
  });

  it('a job mounting a container by `name:` is granted from this machine at submit on exactly that container (both identities); its cluster, launched by the controller, mounts it as the jobs identity', async () => {
    process.env.AZURE_STORAGE_ACCOUNT = 'jobdata';
    const row = await launchController('ctl-named');
    const { own, jobs } = principals(row.uid);
    await grantControllerBuckets(ctx, row, [named('named-in')], {});
    assert.deepEqual(scopesOf(own), [container('named-in')]);
    assert.deepEqual(scopesOf(jobs), [container('named-in')]);
    assert.equal(blobGrants().length, 2, 'no other container granted');
    const recorded = providerHandle((await ctx.store.read((db) => getCluster(db, 'ctl-named')))!).placement.bucketAccess ?? [];
    assert.ok(recorded.some((a) => a.bucket === 'named-in' && a.account === 'jobdata'), JSON.stringify(recorded));

    // On the VM: its CLI has this machine's account (controllerNodeEnv), so its launch names the same container.
    const env = provider.controllerNodeEnv(refOf(row));
    assert.equal(env.AZURE_STORAGE_ACCOUNT, 'jobdata');
    const access: BucketAccess[] = bucketMountsOf(task(named('named-in'))).map(({ target: t }) => ({ store: t.store, bucket: t.bucket, ...(t.account ? { account: t.account } : {}) }));
    assert.deepEqual(access, [{ store: 'azure', bucket: 'named-in', account: 'jobdata' }]);
    const asController = bed.provider({ credential: token(own), env, catalogDir: path.join(bed.dir, `cat-${row.uid}`) });
    const job = runRequest({ clusterName: 'job-named' });
    const ref: ClusterRef = { uid: job.uid, account: sub() };
    const before = m().calls.length;
    await asController.runInstances({ ...job, placement: { ...job.placement, bucketAccess: access } });
    await asController.waitInstances(ref, 'running', 10_000);
    assert.deepEqual(m().calls.slice(before).filter((c) => /roleAssignments/i.test(c.path)), [], 'the VM made no role assignment');
    const jobsId = jobsIdentityId(sub(), row.uid);
    const [vm] = m().under(`/subscriptions/${sub()}/resourceGroups/skydeck-${row.uid}-jobs/providers/Microsoft.Compute/virtualMachines/`);
    assert.deepEqual(Object.keys(vm.identity.userAssignedIdentities), [jobsId]);
    assert.equal(asController.bucketIdentity(ref), jobsId, 'what rclone names (msi_mi_res_id)');
    // The node's token for storage is the jobs identity's, which holds the Blob role on exactly that container.
    const imds = await new ImdsFake(m(), vm.id).start();
    try {
      const r = await fetch(`${imds.url}/identity/oauth2/token?api-version=2018-02-01&resource=https://storage.azure.com/&msi_res_id=${encodeURIComponent(jobsId)}`, { headers: { Metadata: 'true' } });
      assert.equal((await r.json() as { access_token: string }).access_token, `fake-mi-token:${jobs}`);
    } finally {
      await imds.stop();
    }
    await asController.terminateInstances(ref);
    await asController.waitInstances(ref, 'terminated', 10_000);
    assert.deepEqual(scopesOf(jobs), [container('named-in')], 'the job cluster\'s down keeps the controller\'s grant');
    // Started again by this machine (after its idle stop): both identities keep the submitted containers (the VM could not grant them again).
    await stop(ctx, 'ctl-named');
    await launchController('ctl-named', (await ctx.store.read((db) => getCluster(db, 'ctl-named')))!);
    assert.deepEqual([scopesOf(own), scopesOf(jobs)], [[container('named-in')], [container('named-in')]]);
    const d = await down(ctx, 'ctl-named');
    assert.ok(d.cleaned, d.notes.join('\n'));
    assert.deepEqual(blobGrants(), []);
  });

  it('a container given by name that does not exist (or with no account known here) is refused at submit, saying what, where and how to fix; nothing granted or recorded', async () => {
    process.env.AZURE_STORAGE_ACCOUNT = 'jobdata';
    const row = await launchController('ctl-missing');
    const bucketsOf = async () => providerHandle((await ctx.store.read((db) => getCluster(db, 'ctl-missing')))!).placement.bucketAccess ?? [];
    const had = await bucketsOf();
    await assert.rejects(grantControllerBuckets(ctx, row, [named('not-made')], {}), (e: Error) => {
      assert.ok(e instanceof OpsError && e.kind === 'usage', String(e));
      assert.match(e.message, /Azure container not-made .* does not exist in storage account jobdata \(AZURE_STORAGE_ACCOUNT\) of subscription/);
      assert.match(e.message, /az storage container create --account-name jobdata --name not-made/);
      return true;
    });
    assert.deepEqual(blobGrants(), []);
    assert.deepEqual(await bucketsOf(), had, 'not recorded: the controller\'s next start would try to grant it');
    delete process.env.AZURE_STORAGE_ACCOUNT;
    await assert.rejects(grantControllerBuckets(ctx, row, [named('named-in')], {}), (e: Error) => e instanceof OpsError && /no storage account is known for it on this machine: set AZURE_STORAGE_ACCOUNT/.test(e.message));
    assert.deepEqual(blobGrants(), []);
    const d = await down(ctx, 'ctl-missing');
    assert.ok(d.cleaned, d.notes.join('\n'));
  });

  it('the subscription role holds no role-assignment write or delete; an older controller (write and delete under the old condition) is narrowed when this machine starts it again', async () => {
    const row = await launchController('ctl-older-grants');
    const { own, jobs } = principals(row.uid);
    const defs = () => [...m().resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleDefinitions' && r.properties.roleName.startsWith(CONTROLLER_SUBSCRIPTION_ROLE_NAME));
    const [def] = defs();
    const actions = () => defs()[0].properties.permissions.flatMap((p: { actions: string[] }) => p.actions) as string[];
    assert.deepEqual(actions().filter((a) => a.startsWith('Microsoft.Authorization/')), [`${RA}/read`]);
    // What an older version made: the role with write and delete, the assignment under its condition.
    const [onSub] = [...m().resources.values()].filter((r) => r.type === RA && r.properties.principalId === own && r.properties.scope === `/subscriptions/${sub()}`);
    def.properties.permissions = [{ actions: [...CONTROLLER_SUBSCRIPTION_ACTIONS, `${RA}/write`, `${RA}/delete`], notActions: [], dataActions: [], notDataActions: [] }];
    onSub.properties.condition = `((!(ActionMatches{'${RA}/write'})) OR (@Request[${RA}:RoleDefinitionId] ForAnyOfAnyValues:GuidEquals {${ROLE_BLOB_CONTRIBUTOR}}`
      + ` AND @Request[${RA}:PrincipalType] ForAnyOfAnyValues:StringEqualsIgnoreCase {'ServicePrincipal'})) AND ((!(ActionMatches{'${RA}/delete'})) OR (@Resource[${RA}:RoleDefinitionId] ForAnyOfAnyValues:GuidEquals {${ROLE_BLOB_CONTRIBUTOR}}))`;
    onSub.properties.conditionVersion = '2.0';
    await putAsController(row.uid, container('other'), jobs); // the older controller could
    assert.deepEqual(scopesOf(jobs), [container('other')]);
    await stop(ctx, 'ctl-older-grants');
    await launchController('ctl-older-grants', (await ctx.store.read((db) => getCluster(db, 'ctl-older-grants')))!);
    assert.equal(defs().length, 1);
    assert.deepEqual(actions(), [...CONTROLLER_SUBSCRIPTION_ACTIONS], 'set back to reads only');
    assert.deepEqual([m().get(onSub.id)!.properties.condition, m().get(onSub.id)!.properties.conditionVersion], [null, null]);
    await assert.rejects(putAsController(row.uid, container('named-in'), jobs), forbidden);
    const d = await down(ctx, 'ctl-older-grants');
    assert.ok(d.cleaned, d.notes.join('\n'));
    assert.deepEqual(blobGrants(), [], 'what the older VM granted its jobs identity goes at the down');
  });
});
