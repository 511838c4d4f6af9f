// The managed-jobs controller on a `local` controller cluster (SKYDECK_JOBS_CONTROLLER=
// local-cluster): the same remote client and bundle upload as on an ssh host, over the local
// transport. Hostile env values travel on stdin and reach the job byte for byte.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliBundle, controllerClusterName } from '../../../src/core/managed';
import { localBaseDir } from '../../../src/core/ops';
import { thisCreator } from '../../../src/core/state';
import { isAlive } from '../../../src/core/state/atomicWrite';
import { cliBundleCopy, queueRow, runCli, until, type CliRun } from './remoteCli';

describe('jobs with the controller on a local controller cluster', function () {
  this.timeout(900_000);
  let cli: string;
  let home: string;
  let ws: string;
  let vars: NodeJS.ProcessEnv;
  const jobs = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliRun> => runCli(cli, ['jobs', ...args], { ...vars, ...extra }, ws);
  const ctlRoot = () => path.join(localBaseDir(home, controllerClusterName({ kind: 'local-cluster' }, thisCreator())), 'jobs-controller');

  before(async () => {
    cli = await cliBundleCopy();
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mjl-ws-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mjl-home-'));
    vars = {
      ...process.env, SKYDECK_JOBS_CONTROLLER: 'local-cluster', SKYDECK_CONTROLLER_HOME: home,
      SKYDECK_CONTROLLER_POLL_MS: '200', SKYDECK_CONTROLLER_IDLE_S: '1', SKYDECK_CONFIG: path.join(ws, 'none.yaml'),
    };
  });
  after(async () => {
    // The node's controller exits by itself when idle; end it by its pid if it lingers.
    const lease = path.join(ctlRoot(), 'home', '.skydeck', 'managed.db.controller');
    const pid = fs.existsSync(lease) ? (JSON.parse(fs.readFileSync(lease, 'utf8')) as { pid: number }).pid : undefined;
    if (pid && isAlive(pid)) process.kill(-pid, 'SIGKILL');
    await runCli(cli, ['down', controllerClusterName({ kind: 'local-cluster' }, thisCreator()), '-y', '--grace', '0'], { ...vars, SKYDECK_WORKSPACE: home }, ws);
    for (const d of [ws, home]) fs.rmSync(d, { recursive: true, force: true });
    fs.rmSync(path.dirname(cli), { recursive: true, force: true });
  });

  it('refuses a bad place before doing anything, naming the accepted forms', async () => {
    const r = await jobs(['queue'], { SKYDECK_JOBS_CONTROLLER: "ssh:$(touch x)'" });
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /SKYDECK_JOBS_CONTROLLER: .* is not a controller place: use this-machine, local-cluster, ssh:<pool>, aws, gcp or azure \(each optionally \/<region>\)/);
    assert.equal(fs.existsSync(path.join(ws, 'x')), false);
    // Cloud places: a bad region, a cloud with no controller identity yet, a bad idle time.
    for (const [value, why] of [
      ['aws/us-east-1;id', /SKYDECK_JOBS_CONTROLLER: "aws\/us-east-1;id": "us-east-1;id" is not an AWS region name \(such as us-east-1\)/],
      ['gcp/us-central1;id', /SKYDECK_JOBS_CONTROLLER: "gcp\/us-central1;id": "us-central1;id" is not a GCP region name \(such as us-central1\)/],
      ['kubernetes', /SKYDECK_JOBS_CONTROLLER: "kubernetes": a controller cluster on kubernetes is not available: a controller pod is not built yet/],
    ] as const) {
      const bad = await jobs(['queue'], { SKYDECK_JOBS_CONTROLLER: value });
      assert.equal(bad.code, 2, bad.err);
      assert.match(bad.err, why);
    }
    const idle = await jobs(['queue'], { SKYDECK_JOBS_CONTROLLER: 'aws', SKYDECK_JOBS_CONTROLLER_IDLE_MINUTES: '0' });
    assert.equal(idle.code, 2, idle.err);
    assert.match(idle.err, /SKYDECK_JOBS_CONTROLLER_IDLE_MINUTES: expected whole minutes from 1 to 525600 \(got "0"\)/);
  });

  it('a look (queue, cancel) before any launch launches no controller cluster', async () => {
    const q = await jobs(['queue']);
    assert.equal(q.code, 0, q.err);
    assert.match(q.out, /No unfinished managed jobs/);
    const c = await jobs(['cancel', '3']);
    assert.equal(c.code, 1);
    assert.match(c.err, /Not cancelled \(unknown or already ended\): 3/);
    const st = await runCli(cli, ['status'], { ...vars, SKYDECK_WORKSPACE: home }, ws);
    assert.match(st.out, /No clusters/);
  });

  it('runs a job on a job cluster of the controller cluster; hostile env values arrive intact', async () => {
    const nasty = `a'b"c $(touch ${path.join(ws, 'pwned')}) \`id\` ;|&\nsecond line`;
    fs.writeFileSync(path.join(ws, 't.yaml'), `name: "it's local"\nresources: {cloud: local}\nrun: |\n  sleep 3\n  printf '[%s]\\n' "$NASTY"\n`);
    // Forced here: the upload path a node without Node.js 20+ takes (same OS and CPU as this one).
    const l = await jobs(['launch', 't.yaml', '-y', '--env', `NASTY=${nasty}`], { SKYDECK_JOBS_CONTROLLER_NODE: 'upload' });
    assert.equal(l.code, 0, l.err);
    assert.match(l.err, /Uploading this machine's node v\d+/);
    const tag = `${process.version}-${process.platform}-${process.arch}`;
    assert.equal(fs.statSync(path.join(ctlRoot(), 'node', tag, 'node')).mode & 0o111, 0o111, 'the uploaded node is executable');
    assert.match(l.err, /Controller on controller cluster skydeck-jobs-[0-9a-f]{8}: local/);
    assert.ok(l.out.includes(`[${nasty}]\n`), l.out);
    assert.equal(fs.existsSync(path.join(ws, 'pwned')), false);
    assert.equal(fs.existsSync(path.join(ctlRoot(), 'bundles', cliBundle(cli).hash, '.complete')), true);
    assert.equal(fs.existsSync(path.join(ctlRoot(), 'home', '.skydeck', 'managed.db')), true, 'the store is on the controller cluster');
    const q = await jobs(['queue', '--all']);
    assert.deepEqual(queueRow(q.out, 1)?.slice(0, 5), ['1', 'it-s-local', 'SUCCEEDED', '0', '-']);
    // Ended: the controller kept the job's output before tearing its cluster down, on its node.
    const logs = await jobs(['logs', '1']);
    assert.equal(logs.code, 0, logs.err);
    assert.ok(logs.out.includes(`[${nasty}]\n`), logs.out);
    const st = await runCli(cli, ['status'], { ...vars, SKYDECK_WORKSPACE: home }, ws);
    assert.match(st.out, /skydeck-jobs-[0-9a-f]{8} .* local .* UP/);
  });

  it('down of the controller cluster is refused while a managed job is unfinished, then stops the controller', async () => {
    const name = controllerClusterName({ kind: 'local-cluster' }, thisCreator());
    const down = () => runCli(cli, ['down', name, '-y', '--grace', '0'], { ...vars, SKYDECK_WORKSPACE: home }, ws);
    fs.writeFileSync(path.join(ws, 'long.yaml'), 'name: long\nresources: {cloud: local}\nrun: sleep 600\n');
    const l = await jobs(['launch', 'long.yaml', '-y', '-d']);
    assert.equal(l.code, 0, l.err);
    const id = Number(l.out.trim());
    const refused = await down();
    assert.equal(refused.code, 1, refused.err);
    assert.match(refused.err, new RegExp(`${name} is the managed-jobs controller of 1 unfinished job\\(s\\) \\(${id}\\)`));
    assert.equal(fs.existsSync(path.join(ctlRoot(), 'home', '.skydeck', 'managed.db')), true, 'nothing was removed');
    // stop goes through the same check first (before any refusal of its own for a local cluster).
    const stop = await runCli(cli, ['stop', name], { ...vars, SKYDECK_WORKSPACE: home }, ws);
    assert.notEqual(stop.code, 0);
    assert.match(stop.err, new RegExp(`unfinished job\\(s\\) \\(${id}\\); stopped, it would leave their clusters billing with no controller`));
    assert.equal((await jobs(['cancel', String(id)])).code, 0);
    await until(`job ${id} CANCELLED with its cluster down`, async () => {
      const r = queueRow((await jobs(['queue', '--all'])).out, id);
      return r?.[2] === 'CANCELLED' && r[4] === '-';
    });
    const lease = path.join(ctlRoot(), 'home', '.skydeck', 'managed.db.controller');
    const pid = fs.existsSync(lease) ? (JSON.parse(fs.readFileSync(lease, 'utf8')) as { pid: number }).pid : undefined;
    const ok = await down();
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, new RegExp(`Cluster ${name} \\(uid [0-9a-f-]+\\) is down`));
    if (pid !== undefined) assert.equal(isAlive(pid), false, 'the controller process was stopped');
    assert.equal(fs.existsSync(ctlRoot()), false);
  });
});
