// The editor's client of a controller on a controller cluster (jobs.controller: local-cluster):
// the same setting as the CLI, a look that launches nothing, a submit that launches the
// controller cluster with the extension's bundle, and a log panel fed by the controller's relay.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { controllerClusterName, listManagedJobs, openEditorClient, type ManagedJobsClient } from '../../../src/core/managed';
import { down, localBaseDir } from '../../../src/core/ops';
import { getCluster, thisCreator } from '../../../src/core/state';
import { isAlive } from '../../../src/core/state/atomicWrite';
import { managedLogSource } from '../../../src/ui/commands/support/managedLogSource';
import { testOps, type TestOps } from '../ops/helpers';
import { cliBundleCopy } from './remoteCli';

describe('the editor with the managed-jobs controller on a controller cluster', function () {
  this.timeout(900_000);
  let cli: string;
  let ops: TestOps;
  let ws: string;
  const saved: Record<string, string | undefined> = {};
  const name = controllerClusterName({ kind: 'local-cluster' }, thisCreator());
  const clients: ManagedJobsClient[] = [];
  const open = async (launch: boolean) => {
    const c = await openEditorClient(ops.workspaceRoot, {
      entry: { execPath: process.execPath, args: [cli] }, entryFile: cli, ops: async () => ops, launch,
    });
    clients.push(c);
    return c;
  };
  const hooks = () => {
    const statuses: string[] = [];
    return { statuses, h: { signal: new AbortController().signal, onReconnect: () => undefined, onResumed: () => undefined, onStatus: (s: { status: string }) => statuses.push(s.status) } };
  };

  before(async () => {
    cli = await cliBundleCopy();
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mje-ws-'));
    const env: Record<string, string> = {
      SKYDECK_JOBS_CONTROLLER: 'local-cluster', SKYDECK_CONFIG: path.join(ws, 'none.yaml'), SKYDECK_CONTROLLER_POLL_MS: '200', SKYDECK_CONTROLLER_IDLE_S: '1',
    };
    for (const [k, v] of Object.entries(env)) (saved[k] = process.env[k]), (process.env[k] = v);
    ops = await testOps();
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    const lease = path.join(localBaseDir(ops.workspaceRoot, name), 'jobs-controller', 'home', '.skydeck', 'managed.db.controller');
    const pid = fs.existsSync(lease) ? (JSON.parse(fs.readFileSync(lease, 'utf8')) as { pid: number }).pid : undefined;
    if (pid && isAlive(pid)) process.kill(-pid, 'SIGKILL');
    await down(ops, name, { graceSeconds: 0 }).catch(() => undefined);
    await ops.dispose();
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    for (const d of [ws, ops.workspaceRoot, path.dirname(cli)]) fs.rmSync(d, { recursive: true, force: true });
  });

  it('a look launches nothing and lists no jobs', async () => {
    const look = await open(false);
    assert.deepEqual((await look.list()).jobs, []);
    assert.deepEqual((await listManagedJobs(ops.workspaceRoot, async () => look, async () => ops.store)).jobs, []);
    assert.equal(await ops.store.read((db) => getCluster(db, name)), undefined, 'no controller cluster was launched by a look');
  });

  it('a submit launches the controller cluster; the panel gets the job\'s bytes once, even when resumed; the tree lists it', async () => {
    const client = await open(true);
    const task = 'name: from-editor\nresources: {cloud: local}\nrun: |\n  printf "line %s\\n" 1 2 3\n';
    const { id, controller } = await client.submit({ tasks: [task], name: 'from-editor', envs: {} });
    assert.match(controller.where, new RegExp(`controller cluster ${name}`));
    assert.equal((await ops.store.read((db) => getCluster(db, name)))?.status, 'UP');
    const src = managedLogSource(async () => client, async () => ops, id);
    let text = '';
    const { statuses, h } = hooks();
    const final = await src.follow(0, (d) => (text += d.toString()), h);
    assert.equal(final?.status, 'SUCCEEDED', text);
    assert.equal(text.split('line 1\nline 2\nline 3\n').length, 2, `the job's output once: ${JSON.stringify(text)}`);
    assert.ok(statuses.includes('SUCCEEDED'), statuses.join(','));
    // A resumed follow of the same panel (a reconnect) shows no job byte twice.
    let again = '';
    await src.follow(Buffer.byteLength(text), (d) => (again += d.toString()), hooks().h);
    assert.ok(!again.includes('line 1'), `resumed: ${JSON.stringify(again)}`);
    const listed = await listManagedJobs(ops.workspaceRoot, async () => client, async () => ops.store);
    assert.deepEqual(listed.jobs.map((v) => [v.job.id, v.job.name, v.job.status]), [[id, 'from-editor', 'SUCCEEDED']]);
  });

  it('a look at a controller cluster that is not UP is an error naming it, never "no jobs", and relaunches nothing', async () => {
    const row = (await ops.store.read((db) => getCluster(db, name)))!;
    await ops.store.write((db) => db.run("UPDATE clusters SET status = 'INIT' WHERE uid = ?", [row.uid]));
    try {
      await assert.rejects(open(false), new RegExp(`controller cluster ${name} is INIT: its jobs are unknown`));
      assert.equal((await ops.store.read((db) => getCluster(db, name)))?.status, 'INIT');
    } finally {
      await ops.store.write((db) => db.run("UPDATE clusters SET status = 'UP' WHERE uid = ?", [row.uid]));
    }
  });

  it('the editor never uploads its own runtime to a node without Node.js 20+: it says what to do', async () => {
    process.env.SKYDECK_JOBS_CONTROLLER_NODE = 'upload';
    try {
      await assert.rejects(open(false), /has no Node.js 20\+ on its PATH: install it there, or run "skydeck jobs launch" once from a terminal/);
    } finally {
      delete process.env.SKYDECK_JOBS_CONTROLLER_NODE;
    }
  });
});
