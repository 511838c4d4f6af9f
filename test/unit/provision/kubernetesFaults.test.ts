// The leak scenarios against the kit's real Kubernetes API server, faults injected between the
// client and it by a TLS proxy (test/support/kubeFaults): a listing that fails is never "no
// pods", a create the server accepted is not made twice, a pod stuck Terminating is forced and
// proven gone, and a launch killed between the create and the row update leaves nothing unowned.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { getCluster, listEvents, type ClusterRecord } from '../../../src/core/state';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { downWithProof, findLeaked, FLAGS, provision, refreshOne, type ProvisionResult } from '../../../src/core/provision';
import { releaseKit, useKit, type Kit } from '../../support/k8sKit';
import { KubeFaultProxy, type FaultEffect } from '../../support/kubeFaults/faultProxy';
import { hold, kubeHarness, unhold, type KubeHarness } from '../../support/kubeFaults/kubeHarness';
import { recordStat } from './leakStats';

const LIST = /^\/api\/v1\/namespaces\/default\/pods\?/;
const CREATE = /^\/api\/v1\/namespaces\/default\/pods(\?|$)/;
const DELETE = /^\/api\/v1\/namespaces\/default\/pods\/skydeck-/;
const FAULTS: [string, FaultEffect][] = [
  ['500', { kind: 'status', code: 500 }], ['403', { kind: 'status', code: 403 }],
  ['reset', { kind: 'reset' }], ['timeout', { kind: 'timeout', holdMs: 8_000 }],
];

describe('provision leaks on Kubernetes (the kit, faults between client and API server)', function () {
  this.timeout(5 * 60_000);
  let kit: Kit | undefined;
  let proxy: KubeFaultProxy;
  let h: KubeHarness | undefined;

  before(async function () {
    kit = await useKit(this);
    proxy = await new KubeFaultProxy(kit.runDir, Number(kit.ports.APISERVER_PORT)).start();
  });
  after(async () => {
    await proxy?.stop();
    if (kit) await releaseKit();
  });
  beforeEach(async () => {
    proxy.clear();
    h = await kubeHarness(kit!, proxy);
  });
  afterEach(async function () {
    if (!h) return;
    // What the core said and what went over the wire, for a failed scenario.
    if (this.currentTest?.state !== 'passed') console.error(`core: ${h.log.slice(-15).join('\n  ')}\nwire: ${proxy.seen.slice(-15).map((x) => `${x.method} ${x.path} ${x.outcome} ${x.status ?? ''}`).join('\n  ')}`);
    proxy.clear();
    recordStat({ kind: 'scenario', title: `kubernetes: ${this.currentTest?.title}`, passed: this.currentTest?.state === 'passed', leaks: (await h.leaks()).length });
    await h.dispose();
    h = undefined;
  });

  const launch = (name: string): Promise<ProvisionResult> =>
    provision(h!.env, { name, numNodes: 1, placements: [{ cloud: 'kubernetes', useSpot: false }], bootstrap: async () => ({ workdir: '/tmp' }) });
  const row = (name: string) => h!.store.read((db) => getCluster(db, name));
  const live = async (uid: string) => (await h!.podsOf(uid)).filter((p) => !p.metadata?.deletionTimestamp);

  it('list pods fails (500, 403, reset, timeout) during refresh, down and sweep: the row stays, the error is said, never "no pods"', async () => {
    const up = await launch('kl-list');
    assert.ok(up.ok, up.error);
    const uid = up.row!.uid;
    for (const [what, effect] of FAULTS) {
      if (process.env.SKYDECK_TEST_VERBOSE) console.error(`[kl] ${new Date().toISOString()} fault ${what}`);
      proxy.inject({ method: 'GET', path: LIST, effect, times: -1 });
      // Refresh and sweep under the same fault at once: each waits out its own retries (three
      // 5 s deadlines under "timeout"), and neither answer depends on the other.
      const [r, sweep] = await Promise.all([refreshOne(h!.env, (await row('kl-list'))!), findLeaked([h!.env], 'any')]);
      assert.equal(r.action, 'error', `refresh under ${what}`);
      assert.match(r.message ?? '', what === '403' ? /^auth: / : /^transient: /, `refresh under ${what} says why: ${r.message}`);
      assert.equal((await row('kl-list'))?.status, 'UP', `the row is kept under ${what}`);

      assert.equal(sweep.thisWorkspace.length + sweep.otherWorkspaces.length, 0);
      assert.ok(sweep.errors.some((e) => e.cloud === 'kubernetes' && /listing pods in/.test(e.message)), `the sweep names the namespace it could not list under ${what}: ${JSON.stringify(sweep.errors)}`);
      assert.ok(!sweep.swept.some((s) => s.listed.length), 'nothing counts as listed');
      assert.ok(proxy.seen.some((s) => s.outcome === (what === 'timeout' ? 'timeout' : what === 'reset' ? 'reset' : `status ${what}`)), `the proxy answered ${what}: ${JSON.stringify(proxy.seen)}`);
      proxy.clear();
    }
    // Down while listing fails: not confirmed, the row kept flagged with the reason, the pod not called gone.
    proxy.inject({ method: 'GET', path: LIST, effect: { kind: 'status', code: 500 }, times: -1 });
    const d = await downWithProof({ ...h!.env, timing: { ...h!.env.timing, confirmTimeoutMs: 2_000 } }, (await row('kl-list'))!);
    assert.equal(d.confirmed, false);
    const kept = await row('kl-list');
    assert.equal(kept?.flags, FLAGS.terminationUnconfirmed);
    assert.match(kept?.last_error ?? '', /termination unconfirmed/);
    proxy.clear();
    const again = await downWithProof(h!.env, kept!);
    assert.ok(again.confirmed && again.deleted, again.reason);
    assert.deepEqual(await h!.podsOf(uid), [], 'the pod is gone, not only terminating');
  });

  for (const [what, effect] of [['500', { kind: 'after', code: 500 }], ['reset', { kind: 'after', code: 503 }]] as [string, FaultEffect][]) {
    it(`create answered ${what} after the API server made the pod: the retry makes no second pod`, async () => {
      proxy.inject({ method: 'POST', path: CREATE, effect, times: 1 });
      const up = await launch(`kl-create-${what}`);
      assert.ok(up.ok, up.error);
      assert.equal(proxy.count('POST', CREATE), 2, 'created once, then asked again');
      assert.deepEqual(proxy.seen.filter((s) => s.method === 'POST').map((s) => s.status), [201, 409], 'the second create found the first');
      assert.equal((await live(up.row!.uid)).length, 1);
      const d = await downWithProof(h!.env, up.row!);
      assert.ok(d.confirmed && d.deleted);
    });
  }

  it('a delete the server accepts while the pod stays Terminating (a lost node): forced after the grace, then proven gone', async () => {
    const up = await launch('kl-stuck');
    assert.ok(up.ok, up.error);
    const uid = up.row!.uid;
    const [pod] = await h!.podsOf(uid);
    const name = pod.metadata!.name!;
    // The finalizer keeps the object as an unreachable kubelet would; a grace-0 delete is what
    // removes such a pod from the API, so the proxy lets that one through without it.
    let forced = false;
    proxy.beforeForward = async (method, p) => {
      if (method !== 'DELETE' || !DELETE.test(p)) return;
      if (/gracePeriodSeconds=0/.test(p)) {
        forced = true;
        await unhold(h!.core, name).catch(() => undefined);
      } else if (!(await h!.podsOf(uid))[0]?.metadata?.finalizers?.length) await hold(h!.core, name);
    };
    const d = await downWithProof(h!.env, (await row('kl-stuck'))!);
    assert.ok(d.confirmed && d.deleted, d.reason);
    assert.ok(forced, 'the delete was forced (grace 0)');
    assert.ok(proxy.count('DELETE', DELETE) >= 2);
    assert.deepEqual(await h!.podsOf(uid), [], 'proven gone: no longer listed');
  });

  it('kill -9 of a launch between the pod create and the row update: the sweep lists the labelled pod, down removes it naming its uid', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../support/kubeFaults/launchChild.ts'), h!.root, proxy.kubeconfig(kit!.kubeconfig), 'kl-kill'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b));
    proxy.onUpstream = (s) => {
      if (s.method === 'POST' && CREATE.test(s.path) && s.status === 201) child.kill('SIGKILL');
    };
    const [code, signal] = await new Promise<[number | null, string | null]>((r) => child.on('exit', (c, s) => r([c, s])));
    assert.equal(signal, 'SIGKILL', `killed, not ended: ${code} ${out}`);
    const r = (await row('kl-kill')) as ClusterRecord;
    assert.equal(r.status, 'INIT', 'the intent row is there; the create\'s answer never reached it');
    const listed = await h!.provider.listTagged();
    assert.ok(listed.instances.some((i) => i.tags[TAG_UID] === r.uid), 'the sweep\'s listing finds the labelled pod');
    const sweep = await findLeaked([h!.env], 'any');
    assert.ok(!sweep.thisWorkspace.concat(sweep.otherWorkspaces).some((l) => l.uid === r.uid), 'owned by the INIT row, so not a leak');
    assert.deepEqual(await h!.leaks(), []);
    const d = await downWithProof(h!.env, r);
    assert.ok(d.confirmed && d.deleted, d.reason);
    const said = await h!.store.read((db) => listEvents(db, 'kl-kill').map((e) => `${e.kind}: ${e.message}`));
    assert.ok(said.some((e) => e.startsWith('down: ') && e.includes(r.uid)), `down names the uid: ${said.join(' | ')}`);
    assert.deepEqual(await h!.podsOf(r.uid), []);
  });
});
