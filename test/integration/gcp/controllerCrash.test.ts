// The GCP controller's identity steps (account, role, project binding, then the VM) cut short
// as a kill -9 would leave them: the account step runs for real against the fake and the next
// step is refused, with no undo after it (a killed process runs none); the jobs account (made
// after the project binding, then bound in its own policy) is cut the same way. No row is left either
// way, so what remains must be found by the leak sweep and deleted with proof, the project
// binding included. Two controllers launched at once share the one custom role and the one
// project policy: both end bound, and the down of one while the other launches leaves the
// other's binding.
import * as assert from 'node:assert/strict';
import { type RunRequest } from '../../../src/core/clouds/provider';
import { getCluster } from '../../../src/core/state';
import { down, type OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { findLeakedInstances } from '../../../src/core/ops/leaks';
import { deleteStrayIdentity } from '../../../src/core/ops/identityRelease';
import { parseTaskText } from '../../../src/core/task';
import { controllerTaskText } from '../../../src/core/managed/remote/controllerCluster';
import { CONTROLLER_PERMISSIONS, controllerRole, jobClustersRole } from '../../../src/core/clouds/gcp/controllerRole';
import { serviceAccountEmail } from '../../../src/core/clouds/gcp/autodownIdentity';
import { ensureBucketIdentity } from '../../../src/core/clouds/gcp/bucketIdentity';
import { bucketAccountId, jobsAccountId } from '../../../src/core/clouds/gcp/accountTags';
import { bedOpsContext, runRequest, startGcpBed, PROJECT, REGION, type GcpBed } from './helpers';

const ZONE = 'us-central1-a';
const ROLE = controllerRole(PROJECT);
const JOB_ROLE = jobClustersRole(PROJECT);

describe('gcp controller identity: a launch killed between its steps, and two at once', function () {
  this.timeout(120_000);
  let bed: GcpBed;
  let ctx: OpsContext;

  beforeEach(async () => {
    bed = await startGcpBed();
    ctx = await bedOpsContext(bed, bed.provider({ zones: { [REGION]: [ZONE] } }));
  });
  afterEach(async () => {
    await ctx?.connections.closeAll();
    ctx?.store.close();
    await bed?.close();
  });

  const iam = () => bed.fake.model.iam;
  const bound = () => iam().bindings.filter((b) => b.role === ROLE).flatMap((b) => b.members);
  const jobBound = () => iam().bindings.filter((b) => b.role === JOB_ROLE).flatMap((b) => b.members);
  const controllerReq = (): RunRequest => {
    const r = runRequest({ zone: ZONE, clusterName: 'skydeck-jobs-killed' });
    return { ...r, placement: { ...r.placement, jobsController: true } };
  };

  // Each: the permission whose refusal stops the launch right after the step before it.
  // The jobs account (jobsAccount.ts) comes after the project binding: made in the last two cuts.
  const cuts: [string, string | undefined, boolean][] = [
    ['after the account, before the role', 'iam.roles.get', false],
    ['after the role, before the project binding', 'resourcemanager.projects.getIamPolicy', false],
    ['after the jobs account, before its serviceAccountUser binding', 'iam.serviceAccounts.setIamPolicy', true],
    ['after the binding, before the VM', undefined, true],
  ];
  for (const [when, refused, jobsMade] of cuts) {
    it(`killed ${when}: the sweep finds the account(s) and deletes them and any binding, with proof`, async () => {
      const req = controllerReq();
      const email = serviceAccountEmail(bucketAccountId(req.uid), PROJECT);
      const jobs = serviceAccountEmail(jobsAccountId(req.uid), PROJECT);
      if (refused) iam().callerLacks.add(refused);
      const o = { c: bed.provider().clients, project: PROJECT, backoffMs: 20 };
      const made = ensureBucketIdentity(o, req);
      if (refused) await assert.rejects(made);
      else await made;
      iam().callerLacks.clear();
      assert.ok(iam().accounts.has(email), 'the step before the cut was made');
      assert.equal(iam().accounts.has(jobs), jobsMade);
      assert.equal(bound().includes(`serviceAccount:${email}`), jobsMade);
      assert.equal(iam().accountPolicies.get(jobs)?.bindings.some((b) => b.members.includes(`serviceAccount:${email}`)) ?? false, refused === undefined);

      const sweep = await findLeakedInstances(ctx, ['gcp']);
      assert.deepEqual(sweep.errors, []);
      const stray = (sweep.strayIdentities ?? []).filter((s) => s.uid === req.uid);
      assert.deepEqual(stray.map((s) => [s.kind, s.name, s.cluster]), [
        ['service account', email, 'skydeck-jobs-killed'], ...(jobsMade ? [['service account', jobs, 'skydeck-jobs-killed']] : [])]);
      const del = await deleteStrayIdentity(ctx, stray[stray.length - 1]);
      assert.ok(del.deleted, del.message);
      assert.match(del.message, new RegExp(`service account ${email}.*serviceAccounts\\.get answers 404`));
      assert.match(del.message, new RegExp(`project role binding ${ROLE} of ${email}.*projects\\.getIamPolicy shows no such binding`));
      if (jobsMade) assert.match(del.message, new RegExp(`deleted service account ${jobs} \\(proof: serviceAccounts\\.get answers 404\\)`));
      assert.deepEqual(bound(), []);
      assert.deepEqual(jobBound(), []);
      assert.equal(iam().accounts.has(email), false);
      assert.equal(iam().accounts.has(jobs), false);
      assert.equal(iam().accountPolicies.has(jobs), false, 'its policy went with it');
    });
  }

  const launch = (name: string) => {
    const parsed = parseTaskText(controllerTaskText({ kind: 'cloud', cloud: 'gcp', region: REGION }), 'controller.yaml');
    assert.ok(parsed.ok);
    return launchOnProvider(ctx, name, parsed.tasks[0], { cloud: 'gcp', autostop: { minutes: 10, down: false }, jobsController: true });
  };

  it('two controllers launched at once both end bound to the one role, which holds exactly the list', async () => {
    const [a, b] = await Promise.all([launch('ctl-a'), launch('ctl-b')]);
    const emails = [a, b].map((r) => `serviceAccount:${serviceAccountEmail(bucketAccountId(r.uid), PROJECT)}`);
    assert.deepEqual(bound().sort(), [...emails].sort());
    assert.deepEqual([...iam().roles.get(ROLE)!.includedPermissions].sort(), [...CONTROLLER_PERMISSIONS].sort());
    // The down of one while another launches: the launching one's binding stays.
    const [r] = await Promise.all([down(ctx, 'ctl-a'), launch('ctl-c')]);
    assert.ok(r.cleaned, r.notes.join('\n'));
    const c = (await ctx.store.read((db) => getCluster(db, 'ctl-c')))!;
    assert.deepEqual(bound().sort(), [emails[1], `serviceAccount:${serviceAccountEmail(bucketAccountId(c.uid), PROJECT)}`].sort());
    assert.deepEqual(jobBound().sort(), bound().sort(), 'each bound under the condition too, in the one conditional binding');
    assert.equal(iam().bindings.filter((b) => b.role === JOB_ROLE).length, 1);
    for (const n of ['ctl-b', 'ctl-c']) assert.ok((await down(ctx, n)).cleaned);
    assert.deepEqual(bound(), []);
    assert.deepEqual(jobBound(), []);
  });
});
