// Azure autostop end to end on the fakes: the head is created with a system-assigned identity
// and that identity gets a role on the cluster's resource group only (Virtual Machine
// Contributor to deallocate, Contributor to delete the group); the head's agent, once idle,
// gets a token from the (fake) IMDS and deallocates the VMs — workers first — or deletes the
// group, through the (fake) ARM, which checks what the identity's role allows.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { groupName } from '../../../src/core/clouds/azure';
import { GRANT_FIX, ROLE_CONTRIBUTOR, ROLE_VM_CONTRIBUTOR } from '../../../src/core/clouds/azure/identity';
import { TAG_HEAD } from '../../../src/core/clouds/azure/names';
import { type RunRequest } from '../../../src/core/clouds/provider';
import { ArmError } from '../../support/fakes/azureFake/bodies';
import { ImdsFake } from '../../support/fakes/azureFake/imds';
import { AgentFixture, agentEnv, waitUntil, type ServeClient } from '../../unit/agent/helpers';
import { startAzureBed, runRequest, type AzureBed } from './helpers';

describe('azure autostop: the head deallocates or deletes its own cluster with its managed identity', function () {
  this.timeout(60_000);
  let bed: AzureBed;
  const fx = new AgentFixture();
  let imds: ImdsFake | undefined;
  before(async function () {
    bed = await startAzureBed(this);
  });
  after(async () => bed?.close());
  beforeEach(() => fx.setup());
  afterEach(async () => {
    await fx.cleanup();
    await imds?.stop();
    imds = undefined;
  });

  const groupId = (uid: string) => `/subscriptions/${bed.fake.model.subscription}/resourceGroups/${groupName(uid)}`;
  const vmsOf = (uid: string) => bed.fake.model.under(`${groupId(uid)}/providers/Microsoft.Compute/virtualMachines/`);
  const rolesOf = (uid: string) => bed.fake.model.under(`${groupId(uid)}/providers/Microsoft.Authorization/roleAssignments/`);
  const headOf = (uid: string) => vmsOf(uid).find((v) => v.tags[TAG_HEAD] === 'true')!;
  const launch = async (over: Partial<RunRequest>, autostop: { down: boolean }) => {
    const req = { ...runRequest(over), autostop };
    await bed.provider().runInstances(req);
    return req;
  };
  const headAgent = async (uid: string): Promise<ServeClient> => {
    imds = await new ImdsFake(bed.fake.model, headOf(uid).id).start();
    const ca = path.join(fx.base, 'arm-ca.pem');
    fs.writeFileSync(ca, bed.ca);
    return fx.serve(agentEnv({
      SKYDECK_TICK_INTERVAL: '0.1', HOME: fx.base, SKYDECK_AZURE_IMDS_URL: imds.url, SKYDECK_ARM_URL: bed.fake.endpoint,
      SKYDECK_SELFSTOP_CA: ca, SKYDECK_SHUTDOWN_COMMAND: 'date +%s >> "$HOME/shutdown-ran"',
    }));
  };
  const selfStop = async (c: ServeClient, down: boolean) => {
    await c.call('configure', { autostop: { idle_minutes: 0.01, action: 'azure', down, wait_for: 'jobs' } });
    await waitUntil(async () => (await c.call('status')).autostop.last_result !== null, 20_000, 'the self-stop ran');
    return (await c.call('status')).autostop.last_result as { ok: boolean; done: string[]; problems: string[] };
  };

  it('only the head gets an identity, with a role on its own group only: VM Contributor to stop, Contributor to go down', async () => {
    for (const [down, role] of [[false, ROLE_VM_CONTRIBUTOR], [true, ROLE_CONTRIBUTOR]] as const) {
      const req = await launch({ numNodes: 2 }, { down });
      const head = headOf(req.uid);
      const worker = vmsOf(req.uid).find((v) => v !== head)!;
      assert.equal(head.identity.type, 'SystemAssigned');
      assert.equal(worker.identity, undefined);
      const roles = rolesOf(req.uid);
      assert.equal(roles.length, 1);
      assert.equal(roles[0].properties.principalId, head.identity.principalId);
      assert.equal(roles[0].properties.principalType, 'ServicePrincipal');
      assert.equal(roles[0].properties.scope, groupId(req.uid));
      assert.ok(roles[0].properties.roleDefinitionId.endsWith(`/roleDefinitions/${role}`), `down=${down}: ${roles[0].properties.roleDefinitionId}`);
    }
    const plain = runRequest();
    await bed.provider().runInstances(plain);
    assert.equal(headOf(plain.uid).identity, undefined, 'no autostop, no identity');
  });

  it('autostop deallocates the workers, then the head (a shut-down VM would still bill), reading every page of the VM list', async () => {
    const req = await launch({ numNodes: 3 }, { down: false });
    const head = headOf(req.uid);
    bed.fake.pageSize = 2; // three VMs: the agent must follow nextLink
    const r = await selfStop(await headAgent(req.uid), false).finally(() => (bed.fake.pageSize = 1000));
    assert.deepEqual(r.problems, []);
    assert.equal(r.done.length, 3);
    assert.equal(r.done[2], head.name, 'the head goes last');
    await waitUntil(() => vmsOf(req.uid).every((v) => v._power === 'deallocated'), 10_000, 'every VM deallocated');
    assert.equal(fs.existsSync(path.join(fx.base, 'shutdown-ran')), false, 'no OS shutdown');
    assert.ok(imds!.requests.some((q) => q.startsWith('/metadata/identity/oauth2/token?') && q.includes('resource=https%3A%2F%2Fmanagement.azure.com%2F')));
  });

  it('autodown deletes the resource group; a stop-only identity may not, and says so', async () => {
    const down = await launch({}, { down: true });
    const r = await selfStop(await headAgent(down.uid), true);
    assert.deepEqual([r.ok, r.done], [true, [groupName(down.uid)]]);
    await waitUntil(() => !bed.fake.model.get(groupId(down.uid)), 10_000, 'the group is gone');
    await fx.cleanup();
    await imds?.stop();
    fx.setup();

    const stopOnly = await launch({}, { down: false });
    const r2 = await selfStop(await headAgent(stopOnly.uid), true);
    assert.equal(r2.ok, false);
    assert.match(r2.problems[0], /resourceGroups\.delete: HTTP 403 AuthorizationFailed: .*resourceGroups\/delete/);
    assert.ok(bed.fake.model.get(groupId(stopOnly.uid)), 'least privilege: the group stays');
  });

  it('waits out a new identity\'s replication delay (PrincipalNotFound), then grants', async () => {
    bed.fake.model.identities.principalLagMs = 300;
    try {
      const req = await launch({}, { down: false });
      const puts = bed.fake.model.calls.filter((c) => c.method === 'PUT' && c.path.includes(groupName(req.uid)) && /roleAssignments/.test(c.path));
      assert.ok(puts.length > 1, `retried (${puts.length} PUTs)`);
      assert.equal(rolesOf(req.uid).length, 1);
    } finally {
      bed.fake.model.identities.principalLagMs = 0;
    }
  });

  it('an account that may not grant roles: the launch fails as auth, saying what role is needed', async () => {
    bed.fake.failNext('PUT', /roleAssignments/, new ArmError(403, 'AuthorizationFailed',
      "The client 'tester@example.com' with object id '00000000-0000-0000-0000-0000000000aa' does not have authorization to perform action 'Microsoft.Authorization/roleAssignments/write' over scope '/subscriptions/x'."));
    await assert.rejects(launch({}, { down: false }), (e: Error & { kind?: string; hint?: string }) => {
      assert.equal(e.kind, 'auth');
      assert.match(e.message, /may not give the head VM's identity a role/);
      assert.match(`${e.message} ${e.hint ?? ''}`, new RegExp(GRANT_FIX.slice(0, 40)));
      return true;
    });
  });
});
