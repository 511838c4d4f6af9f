// The GCP managed-jobs controller's jobs account (jobsAccount.ts), on the fake: made by this
// machine at the controller's launch, with no project role, and the controller's account its only
// Service Account User (in the jobs account's own policy). A job's GCS buckets are granted to it
// at submit; the controller VM (its own token, the env controllerNodeEnv hands the node's CLI)
// launches a job cluster with a GCS mount running as it, creating no account; the fake checks
// actAs per attached account, so the VM may attach no other account. A job asking autodown is
// refused before anything is made. The controller's down deletes the jobs account and its bucket
// bindings with proof. The job node writes and reads the bucket on the GCS fake with its instance
// token, which the GCS fake decides by the Compute fake's state: the instance's account and scope,
// and that account's binding in the bucket's policy (as GCS decides it).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OAuth2Client } from 'google-auth-library';
import { TAG_UID, type RunRequest } from '../../../src/core/clouds/provider';
import { getCluster, type ClusterRecord } from '../../../src/core/state';
import { down, type OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { grantControllerBuckets } from '../../../src/core/managed/remote/controllerBuckets';
import { BUCKET_ROLE } from '../../../src/core/clouds/gcp/bucketIam';
import { parseTaskText } from '../../../src/core/task';
import { refOf } from '../../../src/core/provision/handle';
import { controllerClusterName, controllerTaskText } from '../../../src/core/managed/remote/controllerCluster';
import type { ControllerPlace } from '../../../src/core/managed';
import { CONTROLLER_PERMISSIONS, JOB_CLUSTER_PERMISSIONS, JOB_INSTANCE_PREFIX } from '../../../src/core/clouds/gcp/controllerRole';
import { JOBS_ACCOUNT_ENV } from '../../../src/core/clouds/gcp/jobsAccount';
import { ensureAutodownIdentity, serviceAccountEmail } from '../../../src/core/clouds/gcp/autodownIdentity';
import { bucketAccountId, jobsAccountId } from '../../../src/core/clouds/gcp/accountTags';
import { CLOUD_PLATFORM_SCOPE, STORAGE_RW_SCOPE } from '../../../src/core/clouds/gcp/launch';
import { DEFAULT_IMAGE, JOB_CLUSTERS_ENV, JOBS_RULE_ENV } from '../../../src/core/clouds/gcp/options';
import { jobsFirewallName } from '../../../src/core/clouds/gcp/firewall';
import { vmToken } from '../../support/fakes/gcpFake/metadata';
import { permissionsFor } from '../../support/fakes/gcpFake/permissions';
import type { FakeInstance } from '../../support/fakes/gcpFake/model';
import { GcsFake } from '../../support/fakes/gcsFake/server';
import { bedOpsContext, runRequest, startGcpBed, PROJECT, REGION, type GcpBed } from './helpers';

const ZONE = 'us-central1-a';
const PLACE: Extract<ControllerPlace, { kind: 'cloud' }> = { kind: 'cloud', cloud: 'gcp', region: REGION };
const USER_ROLE = 'roles/iam.serviceAccountUser';
const JOB_TASK = 'name: j\nresources: {cloud: gcp}\nfile_mounts:\n  /in: gs://jobs-in/data\nrun: ls /in\n';

describe('gcp managed-jobs controller: the jobs account its job clusters with GCS mounts run as', function () {
  this.timeout(120_000);
  let bed: GcpBed;
  let ctx: OpsContext;
  let progress: string[];

  beforeEach(async () => {
    bed = await startGcpBed();
    progress = [];
    ctx = await bedOpsContext(bed, bed.provider({ zones: { [REGION]: [ZONE] } }), progress);
    bed.fake.bucketIam.addBucket('jobs-in', { uniform: true });
  });
  afterEach(async () => {
    await ctx?.connections.closeAll();
    ctx?.store.close();
    await bed?.close();
  });

  const iam = () => bed.fake.model.iam;
  const ctlEmail = (uid: string) => serviceAccountEmail(bucketAccountId(uid), PROJECT);
  const jobsEmail = (uid: string) => serviceAccountEmail(jobsAccountId(uid), PROJECT);
  const instancesOf = (uid: string) => [...bed.fake.model.instances.values()].filter((i) => i.labels[TAG_UID] === uid);
  const bucketMembers = () => bed.fake.bucketIam.members('jobs-in', BUCKET_ROLE);

  async function launchController(): Promise<ClusterRecord> {
    const parsed = parseTaskText(controllerTaskText(PLACE), 'controller.yaml');
    assert.ok(parsed.ok && parsed.tasks.length === 1);
    return launchOnProvider(ctx, controllerClusterName(PLACE), parsed.tasks[0], { cloud: 'gcp', autostop: { minutes: 10, down: false }, jobsController: true });
  }

  /** The CLI on the controller VM: the VM's token, and the environment this machine gives it (controllerNodeEnv). */
  function vmProvider(ctl: ClusterRecord) {
    const vm: FakeInstance = instancesOf(ctl.uid)[0];
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: vmToken(vm.zone as string, vm.name as string), expiry_date: Date.now() + 3600_000 });
    const env = ctx.providers!.get('gcp')!.controllerNodeEnv!(refOf(ctl));
    return bed.provider({ authClient: auth, env, catalogDir: fs.mkdtempSync(path.join(bed.dir, 'vm-catalog-')), zones: { [REGION]: [ZONE] } });
  }

  const gcsJob = (over: Partial<RunRequest> = {}): RunRequest => {
    const r = runRequest({ zone: ZONE, ...over });
    return { ...r, placement: { ...r.placement, bucketAccess: [{ store: 'gcs', bucket: 'jobs-in', prefix: 'data' }] } };
  };

  it('the controller\'s launch makes the jobs account: no project role, the controller its only user, named to the node', async () => {
    const ctl = await launchController();
    const jobs = jobsEmail(ctl.uid);
    const sa = iam().accounts.get(jobs) as { description: string; displayName: string } | undefined;
    assert.ok(sa, 'made with the controller');
    assert.match(sa.description, new RegExp(`^skydeck-cluster-uid=${ctl.uid} skydeck-workspace=\\S+ jobs=1$`));
    assert.equal(sa.displayName, `Skydeck jobs of cluster ${ctl.name}`);
    assert.deepEqual(iam().bindings.filter((b) => b.members.includes(`serviceAccount:${jobs}`)), [], 'no project role');
    assert.deepEqual(iam().accountPolicies.get(jobs)?.bindings, [{ role: USER_ROLE, members: [`serviceAccount:${ctlEmail(ctl.uid)}`] }]);
    // Told together with the job-cluster instance prefix (the name condition's) and the jobs rule's tag, never one without the others.
    assert.deepEqual(ctx.providers!.get('gcp')!.controllerNodeEnv!(refOf(ctl)), { [JOB_CLUSTERS_ENV]: '1', [JOBS_ACCOUNT_ENV]: jobs, [JOBS_RULE_ENV]: jobsFirewallName(ctl.uid) });
  });

  it('a job with a GCS mount: granted at submit, its cluster launched by the VM as the jobs account; no account made; it outlives the job', async () => {
    const ctl = await launchController();
    const jobs = jobsEmail(ctl.uid);
    await grantControllerBuckets(ctx, (await ctx.store.read((db) => getCluster(db, ctl.name)))!, [JOB_TASK], {});
    assert.deepEqual(bucketMembers(), [`serviceAccount:${ctlEmail(ctl.uid)}`, `serviceAccount:${jobs}`]);
    const accounts = [...iam().accounts.keys()].sort();
    const p = vmProvider(ctl);
    const firstRead = bed.fake.reads.length;
    const firstWrite = bed.fake.model.calls.length;
    const job = gcsJob();
    await p.runInstances(job);
    await p.waitInstances(job, 'running', 5000);
    const [node] = instancesOf(job.uid);
    assert.ok(String(node.name).startsWith(JOB_INSTANCE_PREFIX), String(node.name));
    // What GCS decides a node's read and write on: its account holds objectAdmin on the bucket, and its token's scope covers storage.
    assert.deepEqual(node.serviceAccounts, [{ email: jobs, scopes: [STORAGE_RW_SCOPE] }]);
    assert.ok(bed.fake.bucketIam.buckets.get('jobs-in')!.bindings.some((b) => b.role === BUCKET_ROLE && b.members.includes(`serviceAccount:${jobs}`)));
    assert.deepEqual([...iam().accounts.keys()].sort(), accounts, 'the VM created no account');
    // A job cluster's launch resumed on the VM (its row existed) asks for its buckets again: granted at submit already.
    assert.deepEqual(await p.grantBuckets!(job, job.placement.bucketAccess!), { identity: `service account ${jobs}`, changed: false });
    await nodeUsesBucket(job.uid);
    await p.terminateInstances(job);
    await p.waitInstances(job, 'terminated', 5000);
    assert.ok(iam().accounts.has(jobs), 'a job cluster\'s end leaves the controller\'s jobs account');
    assert.ok(bucketMembers().includes(`serviceAccount:${jobs}`));
    const made = [
      ...bed.fake.reads.slice(firstRead).map((r) => ({ method: 'GET', path: r.split('?')[0], body: undefined })),
      ...bed.fake.model.calls.slice(firstWrite),
    ];
    const needed = new Set(made.flatMap((c) => permissionsFor(c.method, c.path, c.body).permissions));
    assert.ok(needed.has('compute.instances.setServiceAccount'));
    // actAs is held in the jobs account's own policy, not by either role (checked by the fake above).
    assert.deepEqual([...needed].filter((x) => !CONTROLLER_PERMISSIONS.includes(x) && !JOB_CLUSTER_PERMISSIONS.includes(x)), ['iam.serviceAccounts.actAs'], 'every other call the VM made is in its roles');
    assert.ok(!CONTROLLER_PERMISSIONS.includes('compute.instances.setServiceAccount'), 'attaching is an instance permission: the conditioned role\'s');
  });

  /**
   * The job's node writes data/out.txt and reads it back with its own instance token, on a GCS
   * fake that decides such tokens by the instance's account, scope and bucket binding; a node of
   * a job cluster without GCS mounts (no account) is refused with GCS's 403.
   */
  async function nodeUsesBucket(uid: string): Promise<void> {
    const gcs = await new GcsFake().start();
    try {
      const made = await fetch(`${gcs.endpoint}/storage/v1/b?project=${PROJECT}`, { method: 'POST', headers: { authorization: 'Bearer fake-token', 'content-type': 'application/json' }, body: JSON.stringify({ name: 'jobs-in' }) });
      assert.equal(made.status, 200);
      gcs.deciders.push((token, bucket) => {
        const at = /^fake-vm-token:(.+)$/.exec(token)?.[1];
        if (!at) return undefined;
        const sa = (bed.fake.model.instances.get(at)?.serviceAccounts as { email: string; scopes: string[] }[] | undefined)?.[0];
        const scoped = !!sa?.scopes.some((x) => x === STORAGE_RW_SCOPE || x === CLOUD_PLATFORM_SCOPE);
        return { who: sa?.email ?? `instance ${at}`, allowed: !!sa && scoped && !!bucket && bucketMembers().includes(`serviceAccount:${sa.email}`) };
      });
      const as = (vm: FakeInstance) => ({ authorization: `Bearer ${vmToken(vm.zone as string, vm.name as string)}` });
      const [node] = instancesOf(uid);
      const put = await fetch(`${gcs.endpoint}/upload/storage/v1/b/jobs-in/o?uploadType=media&name=data%2Fout.txt`, { method: 'POST', headers: { ...as(node), 'content-type': 'text/plain' }, body: 'from the job' });
      assert.equal(put.status, 200, await put.clone().text());
      const got = await fetch(`${gcs.endpoint}/storage/v1/b/jobs-in/o/data%2Fout.txt?alt=media`, { headers: as(node) });
      assert.equal(await got.text(), 'from the job');
      const plain = runRequest({ zone: ZONE });
      await vmProvider((await ctx.store.read((db) => getCluster(db, controllerClusterName(PLACE))))!).runInstances(plain);
      const refused = await fetch(`${gcs.endpoint}/storage/v1/b/jobs-in/o/data%2Fout.txt?alt=media`, { headers: as(instancesOf(plain.uid)[0]) });
      assert.equal(refused.status, 403, 'a node without the jobs account may not read the bucket');
    } finally {
      await gcs.stop();
    }
  }

  it('the VM may attach the jobs account and no other: the default, the autodown, its own and another cluster\'s are refused (actAs)', async () => {
    const ctl = await launchController();
    const other = await launchOnProvider(ctx, 'other-bkt', (() => {
      const parsed = parseTaskText(JOB_TASK.replace('name: j', 'name: other-bkt'), 'other.yaml');
      assert.ok(parsed.ok);
      return parsed.tasks[0];
    })(), { cloud: 'gcp', autostop: { minutes: null, down: false } });
    const autodown = await ensureAutodownIdentity({ c: bed.provider().clients, project: PROJECT, backoffMs: 10 });
    assert.ok(iam().accounts.has(ctlEmail(other.uid)) && iam().accounts.has(autodown), 'each refused account exists');
    const p = vmProvider(ctl);
    let n = 0;
    // Named as job clusters are, so the name condition passes: the account is what is decided.
    const vmAs = (email: string, name = `${JOB_INSTANCE_PREFIX}attach-${++n}`) => p.clients.post(`projects/${PROJECT}/zones/${ZONE}/instances`, {
      name, machineType: `zones/${ZONE}/machineTypes/e2-small`,
      disks: [{ boot: true, initializeParams: { sourceImage: DEFAULT_IMAGE } }], networkInterfaces: [{ network: 'global/networks/default' }],
      serviceAccounts: [{ email, scopes: [CLOUD_PLATFORM_SCOPE] }],
    });
    const refused: [string, string][] = [
      ['default', iam().defaultAccount], [autodown, autodown], [ctlEmail(ctl.uid), ctlEmail(ctl.uid)], [ctlEmail(other.uid), ctlEmail(other.uid)],
    ];
    for (const [given, resolved] of refused) {
      await assert.rejects(vmAs(given), (e: Error & { httpStatusCode?: number }) => e.httpStatusCode === 403
        && e.message.includes(`Required 'iam.serviceAccounts.actAs' permission for 'projects/${PROJECT}/serviceAccounts/${resolved}'`), given);
    }
    const attached = () => [...bed.fake.model.instances.values()].filter((i) => String(i.name).includes('attach-')).map((i) => i.name);
    assert.deepEqual(attached(), []);
    // The jobs account on a VM named outside the prefix: refused by the name condition (create and setServiceAccount are its).
    await assert.rejects(vmAs(jobsEmail(ctl.uid), 'attach-plain'), (e: Error) => e.message.includes(`Required 'compute.instances.create' permission for 'projects/${PROJECT}/zones/${ZONE}/instances/attach-plain'`));
    await vmAs(jobsEmail(ctl.uid));
    assert.deepEqual(attached(), [`${JOB_INSTANCE_PREFIX}attach-${n}`]);
    // A project role holding actAs would reach every account: the fake honours it too (GCP's hierarchy).
    iam().addBinding(USER_ROLE, `serviceAccount:${ctlEmail(ctl.uid)}`);
    await vmAs('default');
  });

  it('a job cluster asking autodown is refused on the controller before anything is made', async () => {
    const ctl = await launchController();
    const p = vmProvider(ctl);
    const before = bed.fake.model.calls.length;
    for (const job of [gcsJob(), runRequest({ zone: ZONE })]) {
      await assert.rejects(p.runInstances({ ...job, autostop: { down: true } }), (e: Error & { kind?: string; hint?: string }) => e.kind === 'config'
        && /cannot autodown: the managed-jobs controller VM ends its job clusters itself/.test(e.message) && /drop autostop down/.test(e.hint ?? ''));
      assert.deepEqual(instancesOf(job.uid), []);
    }
    assert.equal(bed.fake.model.calls.length, before, 'no call was made');
  });

  it('the controller\'s down deletes the jobs account and its bucket bindings, each named with its proof', async () => {
    const ctl = await launchController();
    const jobs = jobsEmail(ctl.uid);
    await grantControllerBuckets(ctx, (await ctx.store.read((db) => getCluster(db, ctl.name)))!, [JOB_TASK], {});
    const r = await down(ctx, ctl.name);
    assert.ok(r.cleaned, r.notes.join('\n'));
    assert.ok(r.notes.includes(`deleted service account ${jobs} (proof: serviceAccounts.get answers 404)`), r.notes.join('\n'));
    assert.equal(iam().accounts.has(jobs), false);
    assert.equal(iam().accountPolicies.has(jobs), false);
    assert.deepEqual(bucketMembers(), []);
    assert.deepEqual(progress.filter((m) => m.startsWith('warn:')), []);
  });

  it('a controller launched without a jobs account (an older Skydeck): a job\'s buckets are refused before anything is recorded or granted', async () => {
    const ctl = await launchController();
    const jobs = jobsEmail(ctl.uid);
    iam().accounts.delete(jobs);
    iam().accountPolicies.delete(jobs);
    const row = (await ctx.store.read((db) => getCluster(db, ctl.name)))!;
    await assert.rejects(grantControllerBuckets(ctx, row, [JOB_TASK], {}), /has no service account for its job clusters.*down the controller cluster/s);
    assert.deepEqual(bucketMembers(), []);
    assert.doesNotMatch((await ctx.store.read((db) => getCluster(db, ctl.name)))!.handle ?? '', /jobs-in/);
  });
});
