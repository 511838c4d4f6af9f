// GCP autodown end to end on the fakes: a head launched for autodown carries Skydeck's own
// service account (nothing else does); the head's agent, once idle, gets a token from the
// (fake) metadata server and deletes the cluster — workers first, the head last, nobody else's
// instance — through the (fake) Compute API, which checks the token's scopes and the account's
// IAM roles. A head without that identity, or whose account lacks the role, says why and shuts
// down instead (stopped, not running).
import * as assert from 'node:assert/strict';
import { LABEL_HEAD } from '../../../src/core/clouds/gcp/status';
import { CLOUD_PLATFORM_SCOPE } from '../../../src/core/clouds/gcp/launch';
import { autodownEmail, autodownRole } from '../../../src/core/clouds/gcp/autodownIdentity';
import { TAG_UID, type RunRequest } from '../../../src/core/clouds/provider';
import { GceMetadataFake } from '../../support/fakes/gcpFake/metadata';
import { AgentFixture, agentEnv, waitUntil, type ServeClient } from '../../unit/agent/helpers';
import { startGcpBed, runRequest, PROJECT, type GcpBed } from './helpers';

describe('gcp autodown: the head deletes its own cluster with its service account', function () {
  this.timeout(60_000);
  let bed: GcpBed;
  const fx = new AgentFixture();
  let meta: GceMetadataFake | undefined;
  before(async () => (bed = await startGcpBed()));
  after(async () => bed?.close());
  beforeEach(() => fx.setup());
  afterEach(async () => {
    await fx.cleanup();
    await meta?.stop();
    meta = undefined;
  });

  const instancesOf = (uid: string) => [...bed.fake.model.instances.values()].filter((i) => i.labels[TAG_UID] === uid);
  const launch = async (req: RunRequest) => {
    await bed.provider().runInstances(req);
    await waitUntil(() => instancesOf(req.uid).every((i) => i.status === 'RUNNING'), 10_000, 'instances running');
    const head = instancesOf(req.uid).find((i) => i.labels[LABEL_HEAD] === 'true')!;
    meta = await new GceMetadataFake(bed.fake.model, head.zone, head.name).start();
    return head;
  };
  /** The head's agent with its endpoints moved to the fakes and the OS shutdown replaced. */
  const headAgent = (): ServeClient => fx.serve(agentEnv({
    SKYDECK_TICK_INTERVAL: '0.1', HOME: fx.base, SKYDECK_GCE_METADATA_URL: meta!.url,
    SKYDECK_GCE_API_URL: `http://127.0.0.1:${bed.fake.port}/compute/v1`,
    SKYDECK_SHUTDOWN_COMMAND: 'date +%s >> "$HOME/shutdown-ran"',
  }));
  const selfStop = async (c: ServeClient) => {
    await c.call('configure', { autostop: { idle_minutes: 0.01, action: 'gcp', down: true, wait_for: 'jobs' } });
    await waitUntil(async () => (await c.call('status')).autostop.last_result !== null, 20_000, 'the self-stop ran');
    return (await c.call('status')).autostop.last_result as { ok: boolean; done: string[]; problems: string[] };
  };

  it('only the head of an autodown cluster gets a service account: Skydeck\'s own, cloud-platform scope, narrowed by IAM', async () => {
    const req = { ...runRequest({ numNodes: 2 }), autostop: { down: true } };
    await bed.provider().runInstances(req);
    const head = instancesOf(req.uid).find((i) => i.labels[LABEL_HEAD] === 'true')!;
    const worker = instancesOf(req.uid).find((i) => i !== head)!;
    assert.deepEqual(head.serviceAccounts, [{ email: autodownEmail(PROJECT), scopes: [CLOUD_PLATFORM_SCOPE] }]);
    assert.equal(worker.serviceAccounts, undefined);
    const plain = runRequest({ numNodes: 1 });
    await bed.provider().runInstances({ ...plain, autostop: { down: false } });
    assert.equal(instancesOf(plain.uid)[0].serviceAccounts, undefined, 'autostop without down needs no identity');
  });

  it('deletes the workers, then the head, and nothing of another cluster', async () => {
    const req = { ...runRequest({ numNodes: 3 }), autostop: { down: true } };
    const head = await launch(req);
    const other = runRequest({ numNodes: 1 });
    await bed.provider().runInstances(other);
    const r = await selfStop(headAgent());
    assert.deepEqual(r.problems, []);
    assert.equal(r.done.length, 3);
    assert.equal(r.done[2], head.name, 'the head goes last');
    const deletes = bed.fake.model.calls.filter((c) => c.method === 'DELETE').map((c) => c.path.split('/').pop());
    assert.deepEqual(deletes.slice(-3), r.done);
    await waitUntil(() => instancesOf(req.uid).length === 0, 10_000, 'the cluster is gone');
    assert.equal(instancesOf(other.uid).length, 1, 'another cluster is untouched');
    assert.ok(meta!.requests.includes('instance/service-accounts/default/token'));
    assert.equal(bed.fake.model.project, PROJECT);
  });

  it('a head whose token lacks the compute scope: the API says so, the nodes shut down instead', async () => {
    const req = { ...runRequest({ numNodes: 1 }), autostop: { down: true } };
    const head = await launch(req);
    (head.serviceAccounts as { scopes: string[] }[])[0].scopes = ['https://www.googleapis.com/auth/devstorage.read_only'];
    const r = await selfStop(headAgent());
    assert.match(r.problems[0], /^instances\.get \S+: HTTP 403 Request had insufficient authentication scopes\./);
    assert.deepEqual(r.done, ['head'], 'shut down instead');
    assert.equal(instancesOf(req.uid).length, 1, 'nothing deleted');
  });

  it('a head whose account lost its role binding may not delete itself: the API refuses, the nodes shut down instead', async () => {
    const req = { ...runRequest({ numNodes: 1 }), autostop: { down: true } };
    const head = await launch(req);
    const iam = bed.fake.model.iam;
    iam.bindings = iam.bindings.filter((b) => b.role !== autodownRole(PROJECT));
    const r = await selfStop(headAgent());
    assert.match(r.problems[0], /^instances\.get \S+: HTTP 403 Required 'compute\.instances\.get' permission for 'projects\/skydeck-test\/zones\/us-central1-a\/instances\//);
    assert.deepEqual(r.done, ['head'], 'shut down instead');
    assert.equal(instancesOf(req.uid).length, 1, 'nothing deleted');
    assert.ok(!bed.fake.model.calls.some((c) => c.method === 'DELETE' && c.path.endsWith(`/${head.name}`)));
  });

  it('a head launched without autodown has no service account: metadata says 404, the node shuts down', async () => {
    const req = runRequest({ numNodes: 1 });
    await launch(req);
    const r = await selfStop(headAgent());
    assert.match(r.problems[0], /^metadata instance\/service-accounts\/default\/token: HTTP 404/);
    assert.deepEqual(r.done, ['head']);
  });
});
