// The whole path with the controller on a GCP VM (jobs.controller: gcp/us-central1), on the
// Compute/IAM fake: the first `jobs launch` launches the controller cluster through
// ensureControllerCluster and the provision loop (the VM as its own account, bound to
// skydeckJobsController); its head is a loopback sshd test host standing in for the instance
// (sshdStandIn), never the address the fake hands out. The real CLI bundle is uploaded there and
// the real controller runs a managed job (on a `local` cluster of that node: a job cluster on GCP
// would need the node to reach the fake, which it is not told of). This machine's Google
// credentials never reach the node (it is told SKYDECK_GCP_JOB_CLUSTERS, which names its job
// clusters with the prefix its conditional binding allows, and its jobs account's e-mail, which
// those with GCS mounts run as); down removes the bindings and both accounts with proof.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { down, type OpsContext } from '../../../src/core/ops';
import { cliBundle, controllerClusterName, openRemoteClient, type ControllerPlace } from '../../../src/core/managed';
import type { RemoteManagedClient } from '../../../src/core/managed/remote/remoteClient';
import { controllerRole } from '../../../src/core/clouds/gcp/controllerRole';
import { serviceAccountEmail } from '../../../src/core/clouds/gcp/autodownIdentity';
import { bucketAccountId, jobsAccountId } from '../../../src/core/clouds/gcp/accountTags';
import { CLOUD_PLATFORM_SCOPE } from '../../../src/core/clouds/gcp/launch';
import { JOB_CLUSTERS_ENV } from '../../../src/core/clouds/gcp/options';
import { JOBS_ACCOUNT_ENV } from '../../../src/core/clouds/gcp/jobsAccount';
import { startHosts, type TestHosts } from '../../hosts';
import { cliBundleCopy, until } from '../managed/remoteCli';
import { standInContext } from '../aws/sshdStandIn';
import { startGcpBed, PROJECT, REGION, type GcpBed } from './helpers';

const PLACE: ControllerPlace = { kind: 'cloud', cloud: 'gcp', region: REGION };

describe('managed jobs with the controller on a GCP VM (fake; the VM is a loopback sshd host)', function () {
  this.timeout(600_000);
  let bed: GcpBed;
  let hosts: TestHosts;
  let ctx: OpsContext;
  let cli = '';
  const progress: string[] = [];
  const saved = { poll: process.env.SKYDECK_CONTROLLER_POLL_MS };

  before(async function () {
    this.timeout(600_000);
    bed = await startGcpBed();
    hosts = await startHosts(1);
    cli = await cliBundleCopy();
    process.env.SKYDECK_CONTROLLER_POLL_MS = '200'; // forwarded to the node's controller
    ctx = await standInContext({ dir: bed.dir, hosts, provider: bed.provider({ zones: { [REGION]: ['us-central1-a'] } }), progress });
  });
  after(async () => {
    if (saved.poll === undefined) delete process.env.SKYDECK_CONTROLLER_POLL_MS;
    else process.env.SKYDECK_CONTROLLER_POLL_MS = saved.poll;
    await ctx?.connections.closeAll();
    ctx?.store.close();
    await hosts?.stop();
    await bed?.close();
    if (cli) fs.rmSync(path.dirname(cli), { recursive: true, force: true });
  });

  it('launches the controller VM as its own account, runs a job through it, and downs it with its identity', async () => {
    const client = await openRemoteClient(ctx, PLACE, { bundle: cliBundle(cli), idleMinutes: 1 }) as RemoteManagedClient;
    const name = controllerClusterName(PLACE);
    let row = client.cluster;
    try {
      assert.equal(row.name, name);
      assert.equal(row.provider, 'gcp');
      assert.equal(row.autostop_down, 0, 'a stop, not a down: the disk keeps the controller store');
      const email = serviceAccountEmail(bucketAccountId(row.uid), PROJECT);
      const [vm] = [...bed.fake.model.instances.values()].filter((i) => i.labels[TAG_UID] === row.uid);
      assert.deepEqual(vm.serviceAccounts, [{ email, scopes: [CLOUD_PLATFORM_SCOPE] }]);
      assert.deepEqual(bed.fake.model.iam.bindings.filter((b) => b.role === controllerRole(PROJECT)).flatMap((b) => b.members), [`serviceAccount:${email}`]);

      const { id, controller } = await client.submit({
        name: 'via-gcp-ctl', tasks: ['name: via-gcp-ctl\nresources: {cloud: local}\nrun: echo "ran on the controller VM"\n'],
      });
      assert.match(controller.where, new RegExp(`^controller cluster ${name}$`));
      await until('the job SUCCEEDED with its cluster gone', async () => {
        const j = await client.job(id);
        return j?.status === 'SUCCEEDED' && j.clusterName === null;
      }, 180_000);
      // The controller on the node runs with the VM's identity only: none of this machine's Google settings.
      const pid = Number((await hosts.hosts[0].exec(`sed -n 's/.*"pid":\\([0-9]*\\).*/\\1/p' ~/.skydeck/jobs-controller/home/.skydeck/managed.db.controller`)).stdout.trim());
      assert.ok(pid > 0, 'the lease names the node\'s controller');
      const environ = (await hosts.hosts[0].exec(`tr '\\0' '\\n' < /proc/${pid}/environ`)).stdout.split('\n');
      assert.deepEqual(environ.filter((l) => /^(GOOGLE_APPLICATION_CREDENTIALS|GOOGLE_CLOUD_PROJECT|GCLOUD_PROJECT|CLOUDSDK_[A-Z_]+)=/.test(l)), []);
      // What it is told instead, both together (controllerNodeEnv): that it is a controller, so its
      // job clusters get the prefix its conditional binding allows, and the account those with GCS
      // mounts run as.
      const told = environ.filter((l) => l.startsWith('SKYDECK_')).join('\n');
      assert.ok(environ.includes(`${JOB_CLUSTERS_ENV}=1`), told);
      assert.ok(environ.includes(`${JOBS_ACCOUNT_ENV}=${serviceAccountEmail(jobsAccountId(row.uid), PROJECT)}`), told);
    } finally {
      await client.close();
    }
    row = client.cluster;
    const email = serviceAccountEmail(bucketAccountId(row.uid), PROJECT);
    const r = await down(ctx, name);
    assert.ok(r.cleaned, r.notes.join('\n'));
    assert.ok(r.notes.some((n) => n.startsWith(`deleted service account ${email} (proof:`)), r.notes.join('\n'));
    const jobs = serviceAccountEmail(jobsAccountId(row.uid), PROJECT);
    assert.ok(r.notes.some((n) => n.startsWith(`deleted service account ${jobs} (proof:`)), r.notes.join('\n'));
    assert.equal(bed.fake.model.iam.accounts.has(email), false);
    assert.equal(bed.fake.model.iam.accounts.has(jobs), false);
    assert.deepEqual(bed.fake.model.iam.bindings.filter((b) => b.role === controllerRole(PROJECT)).flatMap((b) => b.members), []);
  });
});
