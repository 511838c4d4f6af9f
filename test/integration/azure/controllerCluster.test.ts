// jobs.controller: azure/eastus through the real entry point, ensureControllerCluster: the
// controller cluster is launched by ops launch on the ARM fake (its VM, the user-assigned
// identity and the controller role), and its head is a loopback sshd test host standing in for
// the VM (the fake's addresses are not machines), where the agent is installed with the
// controller's autostop (Azure's: deallocate through the VM's system-assigned identity). A
// second use finds it UP and launches nothing; down deletes the role assignment and the
// identity with proof.
import * as assert from 'node:assert/strict';
import { down, type OpsContext } from '../../../src/core/ops';
import { ensureControllerCluster } from '../../../src/core/managed/remote/controllerCluster';
import type { ControllerPlace } from '../../../src/core/managed';
import { BUCKET_IDENTITY } from '../../../src/core/clouds/azure/bucketIdentity';
import { CONTROLLER_ACTIONS } from '../../../src/core/clouds/azure/controllerRole';
import { groupName } from '../../../src/core/clouds/azure';
import { startHosts, type TestHosts } from '../../hosts';
import { standInContext } from '../aws/sshdStandIn';
import { REGION, startAzureBed, type AzureBed } from './helpers';

const PLACE: ControllerPlace = { kind: 'cloud', cloud: 'azure', region: REGION };

describe('azure: ensureControllerCluster launches the controller VM with its identity (ARM fake; the head is a loopback sshd host)', function () {
  this.timeout(300_000);
  let bed: AzureBed;
  let hosts: TestHosts;
  let ctx: OpsContext;
  const progress: string[] = [];

  before(async function () {
    this.timeout(300_000);
    bed = await startAzureBed(this);
    hosts = await startHosts(1);
    ctx = await standInContext({ dir: bed.dir, hosts, provider: bed.provider(), progress, extra: { identityReleaseMs: 10_000 } });
  });
  after(async () => {
    await ctx?.connections.closeAll();
    ctx?.store.close();
    await hosts?.stop();
    await bed?.close();
  });

  it('first use launches it UP with the agent\'s autostop; the next finds it UP; down deletes its assignment and identity with proof', async () => {
    const m = bed.fake.model;
    const row = await ensureControllerCluster(ctx, PLACE, { idleMinutes: 10 });
    assert.equal(row.status, 'UP');
    assert.equal(row.provider, 'azure');
    assert.ok(progress.some((p) => p.startsWith(`Launching the managed-jobs controller cluster ${row.name} (a Standard_B2s on azure/${REGION})`)), progress.join('\n'));
    const g = `/subscriptions/${m.subscription}/resourceGroups/${groupName(row.uid)}`;
    const mi = m.get(`${g}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${BUCKET_IDENTITY}`)!;
    const [vm] = m.under(`${g}/providers/Microsoft.Compute/virtualMachines/`);
    assert.equal(vm.properties.hardwareProfile.vmSize, 'Standard_B2s');
    assert.deepEqual(Object.keys(vm.identity.userAssignedIdentities), [mi.id]);
    const [def] = [...m.resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleDefinitions');
    assert.deepEqual(def.properties.permissions[0].actions, [...CONTROLLER_ACTIONS]);
    const [ra] = [...m.resources.values()].filter((r) => r.type === 'Microsoft.Authorization/roleAssignments' && r.properties.principalId === mi.properties.principalId);
    assert.equal(ra.properties.roleDefinitionId, def.id);
    // The stand-in head's agent has the controller's autostop: Azure's own (deallocate through ARM), a stop, not a down.
    const st = (await ctx.connections.client(row).status()).autostop!;
    assert.deepEqual([st.idle_minutes, st.action, st.down], [10, 'azure', false]);

    progress.length = 0;
    const again = await ensureControllerCluster(ctx, PLACE, { idleMinutes: 10 });
    assert.equal(again.uid, row.uid);
    assert.ok(!progress.some((p) => /Launching|Starting/.test(p)), progress.join('\n'));

    const d = await down(ctx, row.name);
    assert.ok(d.cleaned, d.notes.join('\n'));
    assert.ok(d.notes.includes(`deleted jobs controller role assignment ${ra.id} (proof: GET ${ra.id} answers 404)`), d.notes.join('\n'));
    assert.ok(d.notes.some((n) => n.startsWith(`deleted managed identity ${BUCKET_IDENTITY} of ${groupName(row.uid)}`)), d.notes.join('\n'));
    assert.equal(m.get(ra.id), undefined);
    assert.equal(m.get(mi.id), undefined);
  });
});
