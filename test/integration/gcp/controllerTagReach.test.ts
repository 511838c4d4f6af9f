// Review (hostile), beside controllerFirewall.test.ts (same bed). The controller role keeps
// compute.instances.setTags on skydeck-j- VMs (controllerRole.ts: a job cluster carries the jobs
// rule's tag), and a tag's value cannot be narrowed by IAM either: the VM's identity can put ANY
// network tag on its job VMs, e.g. the tag of a user's cluster whose rule opens the task's ports
// to 0.0.0.0/0, or a project tag used as a source in some other rule. So "job clusters get SSH
// only / a job task with ports is refused" holds only for the VM's own CLI, not for its identity.
// The fix: target the jobs rule by the jobs service account (targetServiceAccounts), attach that
// account to every job cluster, and drop compute.instances.setTags from the role.
// Fixed: the jobs rule targets the jobs service account, and setTags left the role (ad38002).
import * as assert from 'node:assert/strict';
import { getCluster, type ClusterRecord } from '../../../src/core/state';
import type { OpsContext } from '../../../src/core/ops';
import { findLeakedInstances } from '../../../src/core/ops/leaks';
import { controllerClusterName } from '../../../src/core/managed/remote/controllerCluster';
import type { ControllerPlace } from '../../../src/core/managed';
import { firewallName, jobsFirewallName } from '../../../src/core/clouds/gcp/firewall';
import { apiAnswer, controllerVmProvider, instancesOfUid, launchGcpController } from './controllerBed';
import { bedOpsContext, runRequest, startGcpBed, PROJECT, REGION, type GcpBed } from './helpers';

const ZONE = 'us-central1-a';
const PLACE: Extract<ControllerPlace, { kind: 'cloud' }> = { kind: 'cloud', cloud: 'gcp', region: REGION };

describe('gcp managed-jobs controller: one firewall rule for its job clusters, made and deleted by this machine', function () {
  this.timeout(120_000);
  let bed: GcpBed;
  let ctx: OpsContext;
  let progress: string[];

  beforeEach(async () => {
    bed = await startGcpBed();
    progress = [];
    ctx = await bedOpsContext(bed, bed.provider({ zones: { [REGION]: [ZONE] } }), progress);
  });
  afterEach(async () => {
    await ctx?.connections.closeAll();
    ctx?.store.close();
    await bed?.close();
  });

  const instancesOf = (uid: string) => instancesOfUid(bed, uid);
  const launchController = (name?: string): Promise<ClusterRecord> => launchGcpController(ctx, PLACE, name);
  const vmProvider = (ctl: ClusterRecord) => controllerVmProvider(bed, ctx, ctl, REGION, ZONE);
  const answer = apiAnswer;

  it('the VM identity cannot give its job VM another cluster\'s network tag (ports that cluster opened to 0.0.0.0/0)', async () => {
    // A user's own cluster, launched from this machine with port 8080 open.
    const here = ctx.providers!.get('gcp')!;
    const user = runRequest({ zone: ZONE });
    await here.runInstances(user);
    await here.openPorts(user, [{ from: 8080, to: 8080 }]);
    const userRule = bed.fake.model.firewalls.get(firewallName(user.uid))!;
    assert.ok(JSON.stringify(userRule.allowed).includes('8080'), JSON.stringify(userRule));

    const ctl = await launchController();
    const p = vmProvider(ctl);
    const job = runRequest({ zone: ZONE });
    await p.runInstances(job);
    await p.waitInstances(job, 'running', 5000);
    const vm = instancesOf(job.uid)[0];
    // GCE checks IAM before the fingerprint: a 412 (stale fingerprint) already means IAM let it through.
    const setTags = (fingerprint: string) => answer(p.clients.post(`projects/${PROJECT}/zones/${ZONE}/instances/${vm.name}/setTags`,
      { items: [jobsFirewallName(ctl.uid), firewallName(user.uid)], fingerprint }));
    let [status] = await setTags('stale');
    if (status === 412) {
      [status] = await setTags(String((vm.tags as { fingerprint: string }).fingerprint));
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual((instancesOf(job.uid)[0].tags as { items: string[] }).items, [jobsFirewallName(ctl.uid), firewallName(user.uid)], 'the job VM now carries the user cluster\'s tag');
    }
    assert.equal(status, 403, 'the controller identity re-tagged its job VM into the user cluster\'s rule (tcp:8080 from 0.0.0.0/0)');
  });
  it('a failed controller launch whose rule delete failed: the rule is named by the leak sweep or gone (the row is deleted, so no down will remove it)', async () => {
    bed.fake.model.iam.callerLacks.add('iam.serviceAccounts.actAs'); // the VM insert fails after the rule is made
    bed.fake.failNext('DELETE', /\/global\/firewalls\/skydeck-.*-jobs$/, undefined, 1); // one transient error (503) on the undo's delete
    const before = new Set(bed.fake.model.firewalls.keys());
    await assert.rejects(launchController());
    const left = [...bed.fake.model.firewalls.keys()].filter((n) => !before.has(n) && n.endsWith('-jobs'));
    const rows = await ctx.store.read((db) => getCluster(db, controllerClusterName(PLACE)));
    assert.equal(rows, undefined, 'the failed launch deleted the row: no down will ever run for this uid');
    const sweep = await findLeakedInstances(ctx, ['gcp']);
    const named = JSON.stringify(sweep);
    assert.deepEqual(left.filter((n) => !named.includes(n.replace(/^skydeck-|-jobs$/g, ''))), [],
      `left behind and invisible to the sweep (the log promised "the down removes it"): ${left.join(', ')}`);
  });
});
