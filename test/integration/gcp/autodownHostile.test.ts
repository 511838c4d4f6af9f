// The autodown identity under hostile conditions: launches from separate providers (two editor
// windows, two machines) racing to create the account, the role and the binding; a project id
// that is not one; credentials switched between runs.
import * as assert from 'node:assert/strict';
import { providerFailure as failure } from '../../support/providerFailure';
import { AUTODOWN_PERMISSIONS, autodownEmail, autodownRole, ensureAutodownIdentity } from '../../../src/core/clouds/gcp/autodownIdentity';
import { projectIdProblem } from '../../../src/core/clouds/gcp/project';
import { GcpClients } from '../../../src/core/clouds/gcp/clients';
import type { RunRequest } from '../../../src/core/clouds/provider';
import { startGcpBed, runRequest, PROJECT, type GcpBed } from './helpers';

describe('gcp autodown identity: hostile conditions', function () {
  this.timeout(60_000);
  let bed: GcpBed;
  beforeEach(async () => (bed = await startGcpBed()));
  afterEach(async () => bed?.close());

  const EMAIL = autodownEmail(PROJECT);
  const ROLE = autodownRole(PROJECT);
  const autodown = (): RunRequest => ({ ...runRequest(), autostop: { down: true } });
  const calls = (re: RegExp) => bed.fake.model.calls.filter((c) => c.path.startsWith('/v1/') && re.test(`${c.method} ${c.path}`));

  it('four launches from four providers at once: one account, one role, one binding, every head launched', async () => {
    const reqs = [autodown(), autodown(), autodown(), autodown()];
    await Promise.all(reqs.map((r) => bed.provider().runInstances(r)));
    const iam = bed.fake.model.iam;
    assert.deepEqual([...iam.accounts.keys()], [EMAIL]);
    assert.deepEqual(iam.bindings.filter((b) => b.role === ROLE).flatMap((b) => b.members), [`serviceAccount:${EMAIL}`], 'bound once, not once per launch');
    assert.equal(bed.fake.model.instances.size, 4);
  });

  it('another launch creates the account and the role between this one\'s read and its create: 409 taken as "exists", launched', async () => {
    const iam = bed.fake.model.iam;
    // The other launch's creates land just before ours (the fake's own create paths, so the
    // objects are exactly what IAM would hold).
    const createAccount = iam.createAccount.bind(iam);
    let accountRaces = 0;
    iam.createAccount = (id, sa) => {
      if (accountRaces++ === 0) createAccount(id, sa);
      return createAccount(id, sa);
    };
    const has = iam.roles.has.bind(iam.roles);
    let roleRaces = 0;
    iam.roles.has = (name) => {
      if (roleRaces++ === 0) iam.roles.set(name, { name, includedPermissions: [...AUTODOWN_PERMISSIONS], etag: 'BwX1', stage: 'GA' });
      return has(name);
    };
    const req = autodown();
    await bed.provider().runInstances(req);
    assert.equal(accountRaces, 1);
    assert.equal(roleRaces, 1);
    assert.deepEqual(iam.bindings.filter((b) => b.role === ROLE).flatMap((b) => b.members), [`serviceAccount:${EMAIL}`]);
    assert.equal(bed.fake.model.instances.size, 1);
  });

  for (const project of ['Skydeck-Test', 'skydeck-test/serviceAccounts/x', 'p?x=1', 'skydeck-test:getIamPolicy', 'a b', '../other', 'proj; rm -rf ~', '']) {
    it(`a project id ${JSON.stringify(project)} is refused before any IAM call, naming it`, async () => {
      const c = new GcpClients(bed.options({ project }));
      try {
        const e = await failure(ensureAutodownIdentity({ c, project, backoffMs: 1 }));
        assert.equal(e.kind, 'config');
        assert.ok(e.message.includes(JSON.stringify(project)), e.message);
      } finally {
        await c.close();
      }
      assert.deepEqual(calls(/./), [], 'no IAM or Resource Manager call');
    });
  }

  it('the project id check passes every form GCP allows, domain-scoped ones included', () => {
    for (const p of ['skydeck-test', 'my-proj-123456', 'example.com:my-proj', 'a.b.example.com:my-proj']) assert.equal(projectIdProblem(p), undefined, p);
  });

  it('credentials switched between runs to ones without actAs: the next launch is refused, what the first made is untouched', async () => {
    await bed.provider().runInstances(autodown());
    const iam = bed.fake.model.iam;
    const etag = iam.etag;
    iam.callerLacks.add('iam.serviceAccounts.actAs');
    const e = await failure(bed.provider().runInstances(autodown()));
    assert.equal(e.kind, 'auth');
    assert.match(e.message, /iam\.serviceAccounts\.actAs/);
    assert.equal(iam.etag, etag);
    assert.deepEqual([...iam.accounts.keys()], [EMAIL]);
    assert.equal(bed.fake.model.instances.size, 1);
  });
});
