// Azure autostop end to end on the fakes: the head is created with a system-assigned identity
// and that identity gets a role on the cluster's resource group only (the custom role "Skydeck
// autostop" to deallocate, Contributor to delete the group); the head's agent, once idle,
// gets a token from the (fake) IMDS and deallocates the VMs — workers first — or deletes the
// group, through the (fake) ARM, which checks what the identity's role allows.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { groupName } from '../../../src/core/clouds/azure';
import { AzureClients } from '../../../src/core/clouds/azure/clients';
import { GRANT_FIX, ROLE_CONTRIBUTOR, ROLE_VM_CONTRIBUTOR } from '../../../src/core/clouds/azure/identity';
import { AUTOSTOP_ACTIONS, AUTOSTOP_ROLE_NAME, autostopRoleGuid } from '../../../src/core/clouds/azure/autostopRole';
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

  it('only the head gets an identity, with a role on its own group only: "Skydeck autostop" (made by this machine when missing) to stop, Contributor to go down', async () => {
    const sub = bed.fake.model.subscription;
    const autostopRole = `/subscriptions/${sub}/providers/Microsoft.Authorization/roleDefinitions/${autostopRoleGuid(sub)}`;
    for (const [down, role] of [[false, autostopRoleGuid(sub)], [true, ROLE_CONTRIBUTOR]] as const) {
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
    // The role: VM read and deallocate only, assignable in this subscription, at its fixed GUID.
    const def = bed.fake.model.get(autostopRole)!;
    assert.equal(def.properties.roleName, AUTOSTOP_ROLE_NAME);
    assert.deepEqual(def.properties.permissions, [{ actions: [...AUTOSTOP_ACTIONS], notActions: [], dataActions: [], notDataActions: [] }]);
    assert.deepEqual(def.properties.assignableScopes, [`/subscriptions/${sub}`]);
    const plain = runRequest();
    await bed.provider().runInstances(plain);
    assert.equal(headOf(plain.uid).identity, undefined, 'no autostop, no identity');
  });

  it('the head\'s identity may list and deallocate its cluster\'s VMs, but not run commands on them, change them, or touch another group', async () => {
    const req = await launch({ numNodes: 2 }, { down: false });
    const other = await launch({}, { down: false });
    const head = headOf(req.uid);
    const token = `fake-mi-token:${head.identity.principalId}`;
    const c = new AzureClients({ ...bed.options(), credential: { getToken: async () => ({ token, expiresOnTimestamp: Date.now() + 3600_000 }) } });
    const g = groupName(req.uid);
    const denied = (what: string, fn: () => Promise<unknown>) => assert.rejects(fn(), (e: { code?: string }) => e.code === 'AuthorizationFailed', what);
    // Built-in Virtual Machine Contributor would allow these: runCommand is code run as the VM (and its identities).
    await denied('runCommand on its own head', () => c.compute.virtualMachines.beginRunCommand(g, head.name, { commandId: 'RunShellScript', script: ['id'] }));
    await denied('rewrite a VM of its group', () => c.compute.virtualMachines.beginCreateOrUpdate(g, head.name, { location: head.location }));
    await denied('delete a VM of its group', () => c.compute.virtualMachines.beginDelete(g, head.name));
    await denied('deallocate a VM of another cluster', () => c.compute.virtualMachines.beginDeallocate(groupName(other.uid), headOf(other.uid).name));
    // What the agent does (azure_stop.py: list, then one deallocate per VM, not polled).
    const names: string[] = [];
    for await (const v of c.compute.virtualMachines.list(g)) names.push(v.name!);
    assert.equal(names.length, 2);
    for (const n of names) await c.compute.virtualMachines.beginDeallocate(g, n);
    await waitUntil(() => vmsOf(req.uid).every((v) => v._power === 'deallocated'), 10_000, 'both VMs deallocated');
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

  it('an account that may grant roles but not define them gets Virtual Machine Contributor as before, said in the log; such a cluster still stops itself and goes down with its grant', async () => {
    const sub = bed.fake.model.subscription;
    bed.fake.model.remove(`/subscriptions/${sub}/providers/Microsoft.Authorization/roleDefinitions/${autostopRoleGuid(sub)}`);
    bed.fake.failNext('PUT', /roleDefinitions/, new ArmError(403, 'AuthorizationFailed',
      "The client 'tester@example.com' with object id '00000000-0000-0000-0000-0000000000aa' does not have authorization to perform action 'Microsoft.Authorization/roleDefinitions/write' over scope '/subscriptions/x'."));
    const logs: string[] = [];
    const req = { ...runRequest({ numNodes: 2 }), autostop: { down: false } };
    const p = bed.provider({ log: (m) => logs.push(m) });
    await p.runInstances(req);
    const [ra, ...more] = rolesOf(req.uid);
    assert.equal(more.length, 0);
    assert.ok(ra.properties.roleDefinitionId.endsWith(`/roleDefinitions/${ROLE_VM_CONTRIBUTOR}`), ra.properties.roleDefinitionId);
    assert.ok(logs.some((l) => l.includes(`got Virtual Machine Contributor on its group in place of "${AUTOSTOP_ROLE_NAME}"`) && l.includes(`the custom role is not in subscription ${sub} and this account may not create it`)), logs.join('\n'));
    const r = await selfStop(await headAgent(req.uid), false);
    assert.deepEqual([r.ok, r.problems], [true, []]);
    await waitUntil(() => vmsOf(req.uid).every((v) => v._power === 'deallocated'), 10_000, 'every VM deallocated');
    await p.terminateInstances({ uid: req.uid });
    await waitUntil(() => !bed.fake.model.get(groupId(req.uid)), 10_000, 'the group is gone');
    assert.equal(bed.fake.model.get(ra.id), undefined, 'the grant went with its group');
  });

  it('an account that may not grant roles: the launch fails as auth, saying what role is needed', async () => {
    // Refused twice: the autostop role, then Virtual Machine Contributor (asked for when the first is refused).
    bed.fake.failNext('PUT', /roleAssignments/, new ArmError(403, 'AuthorizationFailed',
      "The client 'tester@example.com' with object id '00000000-0000-0000-0000-0000000000aa' does not have authorization to perform action 'Microsoft.Authorization/roleAssignments/write' over scope '/subscriptions/x'."), 2);
    await assert.rejects(launch({}, { down: false }), (e: Error & { kind?: string; hint?: string }) => {
      assert.equal(e.kind, 'auth');
      assert.match(e.message, /may not give the head VM's identity a role/);
      assert.match(`${e.message} ${e.hint ?? ''}`, new RegExp(GRANT_FIX.slice(0, 40)));
      return true;
    });
  });
});
