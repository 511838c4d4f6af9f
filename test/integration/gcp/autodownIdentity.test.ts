// The autodown identity on the fakes (IAM v1 and Resource Manager v1 routes of the GCE fake):
// made once per project and reused, bound by an etag read-modify-write that survives a
// concurrent writer, waited for while it propagates, and refused with the permission and the
// fix named. Nodes that are not autodown heads get no account and cause no IAM call.
import * as assert from 'node:assert/strict';
import { providerFailure as failure } from '../../support/providerFailure';
import { LABEL_HEAD } from '../../../src/core/clouds/gcp/status';
import { CLOUD_PLATFORM_SCOPE } from '../../../src/core/clouds/gcp/launch';
import { AUTODOWN_PERMISSIONS, autodownEmail, autodownRole } from '../../../src/core/clouds/gcp/autodownIdentity';
import { TAG_UID, type RunRequest } from '../../../src/core/clouds/provider';
import { startGcpBed, runRequest, PROJECT, type GcpBed } from './helpers';

describe('gcp autodown identity: a dedicated service account and a narrow custom role', function () {
  this.timeout(60_000);
  let bed: GcpBed;
  let logs: string[];
  beforeEach(async () => {
    bed = await startGcpBed();
    logs = [];
  });
  afterEach(async () => bed?.close());

  const EMAIL = autodownEmail(PROJECT);
  const ROLE = autodownRole(PROJECT);
  const provider = () => bed.provider({ log: (m) => logs.push(m) });
  const autodown = (n = 1): RunRequest => ({ ...runRequest({ numNodes: n }), autostop: { down: true } });
  const instancesOf = (uid: string) => [...bed.fake.model.instances.values()].filter((i) => i.labels[TAG_UID] === uid);
  const iamWrites = (re: RegExp) => bed.fake.model.calls.filter((c) => c.path.startsWith('/v1/') && re.test(`${c.method} ${c.path}`));
  const bound = () => bed.fake.model.iam.bindings.filter((b) => b.role === ROLE).flatMap((b) => b.members);
  const headInserts = () => bed.fake.model.calls.filter((c) => c.method === 'POST' && /\/instances$/.test(c.path) && c.body?.serviceAccounts);

  it('the first autodown launch creates the account, the role and the binding; the next one reuses them', async () => {
    const first = autodown(2);
    await provider().runInstances(first);
    const iam = bed.fake.model.iam;
    assert.deepEqual([...iam.accounts.keys()], [EMAIL]);
    assert.deepEqual([...iam.roles.get(ROLE)!.includedPermissions].sort(), AUTODOWN_PERMISSIONS);
    assert.deepEqual(bound(), [`serviceAccount:${EMAIL}`]);
    const head = instancesOf(first.uid).find((i) => i.labels[LABEL_HEAD] === 'true')!;
    assert.deepEqual(head.serviceAccounts, [{ email: EMAIL, scopes: [CLOUD_PLATFORM_SCOPE] }]);
    assert.equal(instancesOf(first.uid).find((i) => i !== head)!.serviceAccounts, undefined, 'workers get none');
    assert.ok(iam.allows(EMAIL, 'compute.instances.delete') && !iam.allows(EMAIL, 'compute.instances.create') && !iam.allows(EMAIL, 'compute.firewalls.delete'));
    assert.ok(logs.some((l) => l.includes(`creating the service account ${EMAIL}`)));

    // Another provider (another editor window, another machine): found in the project, not made again.
    const etag = iam.etag;
    await provider().runInstances(autodown());
    assert.equal(iamWrites(/^POST \/v1\/projects\/[^/]+\/serviceAccounts$/).length, 1, 'one account create');
    assert.equal(iamWrites(/^POST \/v1\/projects\/[^/]+\/roles$/).length, 1, 'one role create');
    assert.equal(iamWrites(/:setIamPolicy$/).length, 1, 'one policy write');
    assert.equal(iam.etag, etag, 'the policy is untouched');
    assert.equal(headInserts().length, 2);
  });

  it('a launch without autodown (autostop alone, or none) creates no account and asks IAM nothing', async () => {
    const plain = runRequest({ numNodes: 2 });
    await provider().runInstances(plain);
    const stopOnly = runRequest();
    await provider().runInstances({ ...stopOnly, autostop: { down: false } });
    assert.ok([...instancesOf(plain.uid), ...instancesOf(stopOnly.uid)].every((i) => i.serviceAccounts === undefined));
    assert.equal(bed.fake.model.iam.accounts.size, 0);
    assert.deepEqual(iamWrites(/./), [], 'no IAM or Resource Manager call');
  });

  it('a policy changed by someone else between read and write: 409 ABORTED, read again, both changes kept', async () => {
    const iam = bed.fake.model.iam;
    iam.beforeSetPolicy.push(() => iam.addBinding('roles/viewer', 'user:other-admin@example.com'));
    await provider().runInstances(autodown());
    assert.equal(iam.setPolicyCalls.length, 2, 'the stale write was refused, the second went through');
    const etags = iam.setPolicyCalls.map((b) => (b.policy as { etag: string }).etag);
    assert.notEqual(etags[0], etags[1], 'the retry carries the etag it read again');
    assert.deepEqual(bound(), [`serviceAccount:${EMAIL}`]);
    assert.ok(iam.bindings.some((b) => b.role === 'roles/viewer' && b.members.includes('user:other-admin@example.com')), 'the other writer\'s binding survives');
    assert.ok(logs.some((l) => /policy of skydeck-test changed .* reading it again/.test(l)));
  });

  it('a policy that keeps changing: the retries are bounded and the launch fails, no VM made', async () => {
    const iam = bed.fake.model.iam;
    for (let i = 0; i < 20; i++) iam.beforeSetPolicy.push(() => iam.addBinding('roles/viewer', `user:writer-${i}@example.com`));
    const e = await failure(provider().runInstances(autodown()));
    assert.equal(e.kind, 'transient', 'nothing is wrong with the request: the loop may try again');
    assert.match(e.message, /setIamPolicy: There were concurrent policy changes/);
    assert.equal(iam.setPolicyCalls.length, 8);
    assert.equal(bed.fake.model.instances.size, 0);
  });

  it('a new account Compute does not see yet: the head insert is tried again until it does, saying so', async () => {
    bed.fake.model.iam.propagationMisses = 2;
    const req = autodown();
    await provider().runInstances(req);
    assert.equal(headInserts().length, 3, 'refused twice, then accepted');
    assert.equal(instancesOf(req.uid).length, 1);
    assert.equal(logs.filter((l) => l.includes(`does not see the service account ${EMAIL} yet`)).length, 2);
  });

  it('an account Compute never sees: the tries are bounded and the launch fails as transient', async () => {
    bed.fake.model.iam.propagationMisses = 100;
    const e = await failure(provider().runInstances(autodown()));
    assert.equal(e.kind, 'transient');
    assert.match(e.message, new RegExp(`still does not see the service account ${EMAIL} after 8 tries`));
    assert.equal(headInserts().length, 8);
    assert.equal(bed.fake.model.instances.size, 0);
  });

  it('a caller without iam.serviceAccounts.actAs: an auth error naming the permission and the gcloud fix, no VM', async () => {
    bed.fake.model.iam.callerLacks.add('iam.serviceAccounts.actAs');
    const e = await failure(provider().runInstances(autodown()));
    assert.equal(e.kind, 'auth');
    assert.match(e.message, new RegExp(`may not attach the service account ${EMAIL} to a VM \\(missing permission iam\\.serviceAccounts\\.actAs\\)`));
    assert.match(e.hint ?? '', new RegExp(`^gcloud iam service-accounts add-iam-policy-binding ${EMAIL} --project ${PROJECT} --member user:<YOUR_EMAIL> --role roles/iam\\.serviceAccountUser`));
    assert.equal(bed.fake.model.instances.size, 0);
  });

  it('a caller who may not set the project policy: told which permission and what an admin runs; once done, it launches', async () => {
    const iam = bed.fake.model.iam;
    iam.callerLacks.add('resourcemanager.projects.setIamPolicy');
    const e = await failure(provider().runInstances(autodown()));
    assert.equal(e.kind, 'auth');
    assert.match(e.message, /lacks permission resourcemanager\.projects\.setIamPolicy on project skydeck-test/);
    assert.match(e.hint ?? '', new RegExp(`^gcloud projects add-iam-policy-binding ${PROJECT} --member serviceAccount:${EMAIL} --role ${ROLE}`));
    assert.equal(bed.fake.model.instances.size, 0);
    iam.addBinding(ROLE, `serviceAccount:${EMAIL}`); // the admin's one-time grant
    const req = autodown();
    await provider().runInstances(req);
    assert.equal(instancesOf(req.uid).length, 1, 'reading the policy is enough now');
  });

  it('another team\'s conditional binding is read and written back whole (policy version 3)', async () => {
    const iam = bed.fake.model.iam;
    const condition = { title: 'weekdays', expression: 'request.time.getDayOfWeek("UTC") < 5' };
    iam.bindings.push({ role: 'roles/viewer', members: ['group:night@example.com'], condition });
    await provider().runInstances(autodown());
    assert.deepEqual(iam.bindings.find((b) => b.condition)?.condition, condition);
    assert.equal((iam.setPolicyCalls[0].policy as { version: number }).version, 3);
    assert.deepEqual(bound(), [`serviceAccount:${EMAIL}`]);
  });

  it('the account e-mail follows GCP\'s rule, domain-scoped projects included', () => {
    assert.equal(autodownEmail('my-proj'), 'skydeck-autodown@my-proj.iam.gserviceaccount.com');
    assert.equal(autodownEmail('example.com:my-proj'), 'skydeck-autodown@my-proj.example.com.iam.gserviceaccount.com');
  });

  it('a role someone widened is set back to exactly what the head needs', async () => {
    await provider().runInstances(autodown());
    const role = bed.fake.model.iam.roles.get(ROLE)!;
    role.includedPermissions.push('compute.instances.create', 'iam.serviceAccounts.actAs');
    await provider().runInstances(autodown());
    assert.deepEqual([...role.includedPermissions].sort(), AUTODOWN_PERMISSIONS);
    assert.equal(iamWrites(/^PATCH /).length, 1);
    assert.ok(logs.some((l) => l.includes(`setting the permissions of ${ROLE} back`)));
  });
});
