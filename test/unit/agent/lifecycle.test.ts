import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentFixture, jobRow, waitStatus } from './helpers';

describe('agent job lifecycle', function () {
  this.timeout(30000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  it('submit returns the id with the job already past INIT; success keeps exit code 0', async () => {
    const c = fx.serve();
    const r = await c.call('submit', { name: 'ok', run: 'echo hi' });
    assert.equal(typeof r.job_id, 'number');
    assert.ok(['PENDING', 'SETTING_UP', 'RUNNING', 'SUCCEEDED'].includes(r.status), r.status);
    const row = await waitStatus(c, r.job_id, 'SUCCEEDED');
    assert.equal(row.exit_code, 0);
    assert.equal(row.reason, null);
    assert.ok(row.ended_at >= row.started_at && row.started_at >= row.submitted_at);
  });

  it('a failing run is FAILED with its exit code and a reason', async () => {
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'echo before; exit 7' });
    const row = await waitStatus(c, job_id, 'FAILED');
    assert.equal(row.exit_code, 7);
    assert.match(row.reason, /exited with code 7/);
  });

  it('a failing setup is FAILED_SETUP with a reason, and run never starts', async () => {
    const c = fx.serve();
    const marker = path.join(fx.base, 'run-happened');
    const { job_id } = await c.call('submit', {
      setup: 'echo setting up; exit 3',
      run: `touch '${marker}'`,
    });
    const row = await waitStatus(c, job_id, 'FAILED_SETUP');
    assert.equal(row.exit_code, 3);
    assert.match(row.reason, /setup exited with code 3/);
    assert.equal(fs.existsSync(marker), false);
    const logs = await c.logs({ job_id });
    assert.equal(logs.data.toString(), 'setting up\n');
  });

  it('setup then run: SETTING_UP, then RUNNING, then SUCCEEDED', async () => {
    const c = fx.serve();
    const gate = path.join(fx.base, 'gate');
    const { job_id } = await c.call('submit', {
      setup: `while [ ! -e '${gate}' ]; do sleep 0.05; done; echo setup-done`,
      run: `while [ -e '${gate}' ]; do sleep 0.05; done; echo run-done`,
    });
    await waitStatus(c, job_id, 'SETTING_UP');
    fs.writeFileSync(gate, '');
    await waitStatus(c, job_id, 'RUNNING');
    fs.unlinkSync(gate);
    await waitStatus(c, job_id, 'SUCCEEDED');
    assert.equal((await c.logs({ job_id })).data.toString(), 'setup-done\nrun-done\n');
  });

  it('a missing workdir fails clearly at start (FAILED_SETUP naming the path)', async () => {
    const c = fx.serve();
    const missing = path.join(fx.base, 'no such dir');
    const { job_id } = await c.call('submit', { run: 'true', workdir: missing });
    const row = await waitStatus(c, job_id, 'FAILED_SETUP');
    assert.ok(row.reason.includes(missing), row.reason);
    assert.equal(fs.existsSync(missing), false, 'the workdir is not created');
  });

  it('SKYDECK_* and SKYPILOT_* are set; awkward envs, names, commands and paths arrive byte-exact', async () => {
    const c = fx.serve();
    await c.call('configure', { cluster_name: 'my-cluster', node_ips: ['10.0.0.5'] });
    const weird = `it's "quoted" $(echo no) \`echo no\` $HOME \\ back\nnew line\tü ✓ 🚀 %s *`;
    const workdir = path.join(fx.base, `wd "q" 'x' $(no) ü`);
    fs.mkdirSync(workdir);
    const out = path.join(fx.base, 'env.json');
    const run =
      `/usr/bin/python3 -c 'import os,json,sys; json.dump({"env": dict(os.environ), "cwd": os.getcwd()}, open(sys.argv[1], "w"))' "${out}"\n` +
      `printf '%s\\n' 'literal $(not run) \`nor this\` "dq"'\n` +
      `printf '%s' "$WEIRD" > "$SKYDECK_OUT2"`;
    const { job_id } = await c.call('submit', {
      name: weird.slice(0, 200),
      run,
      workdir,
      envs: { WEIRD: weird, EMPTY: '', NUM: 3, SKYDECK_OUT2: path.join(fx.base, 'weird.txt') },
    });
    const row = await waitStatus(c, job_id, 'SUCCEEDED');
    assert.equal(row.name, weird.slice(0, 200));
    const got = JSON.parse(fs.readFileSync(out, 'utf8'));
    const env = got.env as Record<string, string>;
    assert.equal(got.cwd, fs.realpathSync(workdir));
    assert.equal(env.WEIRD, weird);
    assert.equal(fs.readFileSync(path.join(fx.base, 'weird.txt'), 'utf8'), weird);
    assert.equal(env.EMPTY, '');
    assert.equal(env.NUM, '3');
    assert.equal(env.SKYDECK_JOB_ID, String(job_id));
    assert.equal(env.SKYDECK_NUM_NODES, '1');
    assert.equal(env.SKYDECK_NODE_RANK, '0');
    assert.equal(env.SKYDECK_NODE_IPS, '10.0.0.5');
    assert.equal(env.SKYDECK_CLUSTER_NAME, 'my-cluster');
    assert.equal(env.SKYPILOT_NODE_RANK, '0');
    assert.equal(env.SKYPILOT_NUM_NODES, '1');
    assert.equal(env.SKYPILOT_NODE_IPS, '10.0.0.5');
    assert.equal(env.SKYPILOT_NUM_GPUS_PER_NODE, '0');
    assert.match(env.SKYPILOT_TASK_ID, new RegExp(`^sky-\\d{4}-\\d\\d-\\d\\d-\\d\\d-\\d\\d-\\d\\d-\\d{6}_my-cluster_${job_id}$`));
    assert.equal(JSON.parse(env.SKYPILOT_CLUSTER_INFO).cluster_name, 'my-cluster');
    assert.match(env.SKYDECK_JOB_MARKER, new RegExp(`^[0-9a-f]{16}:${job_id}$`));
    // Agent-private variables never reach the user's commands.
    assert.deepEqual(Object.keys(env).filter((k) => k.startsWith('_SKYDECK')), []);
    const log = (await c.logs({ job_id })).data.toString();
    assert.equal(log, 'literal $(not run) `nor this` "dq"\n');
  });

  it('a status only moves forward: a late report after cancel keeps CANCELLED', async () => {
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'sleep 30' });
    await waitStatus(c, job_id, 'RUNNING');
    await c.call('cancel', { job_ids: [job_id], grace: 1 });
    const before = await c.call('queue', {});
    // The driver's report arriving late (as a racing driver would send it).
    const r = await fx.run(['_done', String(job_id), '0', 'run']);
    assert.equal(r.code, 0);
    await fx.run(['_phase', String(job_id), 'RUNNING']);
    const row = await jobRow(c, job_id);
    assert.equal(row.status, 'CANCELLED');
    assert.equal(row.exit_code, null);
    const after = await c.call('queue', { since: before.cursor, db_id: before.db_id });
    assert.deepEqual(after.rows, [], 'a refused write does not even bump the change counter');
    // A finished job cannot be reopened either.
    const { job_id: j2 } = await c.call('submit', { run: 'exit 5' });
    await waitStatus(c, j2, 'FAILED');
    await fx.run(['_phase', String(j2), 'RUNNING']);
    await fx.run(['_done', String(j2), '0', 'run']);
    const r2 = await jobRow(c, j2);
    // FAILED (user code) outranks SUCCEEDED in the order, so the late success is refused.
    assert.equal(r2.status, 'FAILED');
    assert.equal(r2.exit_code, 5);
  });
});
