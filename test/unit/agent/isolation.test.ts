// Issue 12.8: a job's processes are found through its own cgroup where the node allows one
// (root here), else by the job marker; each job row says which it got.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import {
  agentEnv,
  AgentFixture,
  isAlive,
  jobCgroups,
  markedProcs,
  markerPrefix,
  procStat,
  PY,
  rowsById,
  runAgent,
  waitStatus,
  waitUntil,
} from './helpers';

const NOBODY = 65534;

/** Live processes running exactly `sleep <arg>`. */
function sleepers(arg: string): number[] {
  const want = `sleep\0${arg}\0`;
  const out: number[] = [];
  for (const n of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      if (fs.readFileSync(`/proc/${n}/cmdline`, 'latin1') === want && isAlive(Number(n))) out.push(Number(n));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** A run that leaves two processes outside its session and without its marker. */
function escaping(a: string, b: string): string {
  return `env -u SKYDECK_JOB_MARKER setsid sleep ${a} & env -i sh -c 'setsid sleep ${b} &'; sleep 600`;
}

function uniqueArgs(): [string, string] {
  const n = 700000 + Math.floor(Math.random() * 99999);
  return [String(n), String(n + 100000)];
}

function needRoot(ctx: Mocha.Context): void {
  if (process.getuid?.() === 0) return;
  if (process.env.CI === 'true') throw new Error('the cgroup tests need root (CI=true)');
  console.error(`      !!! SKIPPING "${ctx.currentTest?.title ?? ctx.test?.title}": the cgroup tests need root (run as root, or CI=true makes this a failure)`);
  ctx.skip();
}

describe('agent job isolation (cgroups, marker fallback)', function () {
  this.timeout(30000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  for (const [label, env] of [
    ['the preferred hierarchy (v2 here)', {}],
    ['a v1 hierarchy', { SKYDECK_TEST_CGROUP: 'v1' }],
  ] as [string, Record<string, string>][]) {
    it(`issue 12.8: processes that dropped the job marker (env -u, env -i + setsid) die on cancel; job B untouched — ${label}`, async function () {
      needRoot(this);
      const c = fx.serve(agentEnv(env));
      const [a1, a2] = uniqueArgs();
      const [b1, b2] = uniqueArgs();
      const A = (await c.call('submit', { run: escaping(a1, a2) })).job_id;
      const B = (await c.call('submit', { run: escaping(b1, b2) })).job_id;
      const rowA = await waitStatus(c, A, 'RUNNING');
      await waitUntil(() => sleepers(a1).length === 1 && sleepers(a2).length === 1, 5000, 'A escaped');
      await waitUntil(() => sleepers(b1).length === 1 && sleepers(b2).length === 1, 5000, 'B escaped');
      const escapedA = [...sleepers(a1), ...sleepers(a2)];
      const escapedB = [...sleepers(b1), ...sleepers(b2)];
      // They really escaped: no marker, and a session of their own.
      const marked = new Set(markedProcs(fx.base).map((p) => p.pid));
      for (const p of [...escapedA, ...escapedB]) {
        assert.ok(!marked.has(p), `pid ${p} has no marker`);
        assert.notEqual(procStat(p)!.sid, rowA.driver_pid);
      }
      const want = env.SKYDECK_TEST_CGROUP === 'v1' ? 'cgroup1' : /^cgroup[12]$/;
      assert.match(rowA.isolation, want instanceof RegExp ? want : new RegExp(`^${want}$`));
      assert.equal((await c.call('status')).isolation.mechanism, rowA.isolation);
      assert.equal(jobCgroups(fx.base).length, 2, 'one cgroup per job');

      await c.call('cancel', { job_ids: [A], grace: 1 });
      await waitUntil(() => escapedA.every((p) => !isAlive(p)), 3000, 'A escaped processes killed');
      assert.ok(escapedB.every((p) => isAlive(p)), 'cancelling A never touches B');
      assert.equal((await waitStatus(c, B, 'RUNNING')).status, 'RUNNING');
      // A's cgroup is removed once empty; B's stays.
      await waitUntil(() => jobCgroups(fx.base).length === 1, 5000, "A's cgroup removed");
      await c.call('cancel', { job_ids: [B], grace: 0 });
      await waitUntil(() => escapedB.every((p) => !isAlive(p)), 3000, 'B escaped processes killed');
    });
  }

  for (const v1 of [false, true]) {
    it(`the job's shell starts inside the job's cgroup; ${v1 ? 'v1: the driver moves itself in first' : 'v2: straight in (clone3), nothing is moved, the driver stays out'}`, async function () {
      needRoot(this);
      const [major, minor] = os.release().split('.').map(Number);
      const clone3 = major > 5 || (major === 5 && minor >= 7);
      if (!v1 && !clone3) console.error(`      !!! kernel ${os.release()} has no CLONE_INTO_CGROUP (5.7+): expecting the driver to move in instead`);
      const c = fx.serve(agentEnv(v1 ? { SKYDECK_TEST_CGROUP: 'v1' } : {}));
      const [a] = uniqueArgs();
      const { job_id } = await c.call('submit', { run: `sleep ${a}` });
      const row = await waitStatus(c, job_id, 'RUNNING');
      await waitUntil(() => sleepers(a).length === 1, 5000, 'the job runs');
      const [cg] = jobCgroups(fx.base);
      assert.ok(cg, 'the job has a cgroup');
      const suffix = `/${path.basename(path.dirname(cg))}/${path.basename(cg)}`;
      const inJob = (pid: number) => fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n').some((l) => l.endsWith(suffix));
      assert.ok(inJob(sleepers(a)[0]), "the job's process is in its cgroup");
      assert.equal(inJob(row.driver_pid), v1 || !clone3, v1 || !clone3 ? 'the driver moved in' : 'the driver was not moved');
      await c.call('cancel', { job_ids: [job_id], grace: 0 });
      await waitStatus(c, job_id, 'CANCELLED');
      await waitUntil(() => !isAlive(row.driver_pid) && sleepers(a).length === 0, 5000, 'driver and job gone');
    });
  }

  it('a job whose cgroup cannot be made runs without one, found by marker, and its row says so', async function () {
    needRoot(this);
    const c = fx.serve();
    const first = await c.call('submit', { run: 'sleep 600' });
    await waitStatus(c, first.job_id, 'RUNNING');
    // The next job's cgroup, taken by a process that is not ours: never shared.
    const [cg] = jobCgroups(fx.base);
    const next = path.join(path.dirname(cg), path.basename(cg).replace(/-\d+$/, `-${first.job_id + 1}`));
    fs.mkdirSync(next);
    const squatter = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(path.join(next, 'cgroup.procs'), String(squatter.pid));
      const [a] = uniqueArgs();
      const { job_id } = await c.call('submit', { run: `sleep ${a}` });
      const row = await waitStatus(c, job_id, 'RUNNING');
      assert.equal(row.isolation, 'marker');
      await waitUntil(() => sleepers(a).length === 1, 5000, 'the job runs');
      await c.call('cancel', { job_ids: [job_id, first.job_id], grace: 0 });
      await waitUntil(() => sleepers(a).length === 0, 5000, 'killed by marker');
      assert.ok(isAlive(squatter.pid!), 'the process in the taken cgroup is untouched');
    } finally {
      squatter.kill('SIGKILL');
      await waitUntil(() => !isAlive(squatter.pid!), 5000, 'squatter gone');
      fs.rmdirSync(next);
    }
  });

  it('a SIGKILL through the cgroup also reaches the waiter driver, which is outside it', async function () {
    needRoot(this);
    const c = fx.serve();
    const { job_id } = await c.call('submit', { run: 'sleep 600' });
    const row = await waitStatus(c, job_id, 'RUNNING');
    // As the liveness sweep kills a job it failed (no cancelled flag: the waiter would report).
    const r = spawnSync(PY, ['-c', `
import sys; sys.path.insert(0, ${JSON.stringify(path.resolve(__dirname, '../../../agent'))})
from skydeck_agent_lib import procs
import signal
print(procs.kill_jobs(sys.argv[1], [(${job_id}, ${row.driver_pid}, ${JSON.stringify(String(row.driver_start ?? ''))} or None, procs.boot_id(), sys.argv[2])], signal.SIGKILL, procs.boot_id()))
`, markerPrefix(fx.base), jobCgroups(fx.base)[0]], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    await waitUntil(() => !isAlive(row.driver_pid), 3000, 'the driver killed');
    // Killed, not left to report the job's end as its own (FAILED, exit 137): the sweep finds
    // the driver gone.
    const end = await waitStatus(c, job_id, ['FAILED_DRIVER', 'FAILED', 'SUCCEEDED'], 10000);
    assert.equal(end.status, 'FAILED_DRIVER', JSON.stringify(end));
  });

  it('issue 12.8: a FAILED_DRIVER cleanup kills the processes that dropped the marker too', async function () {
    needRoot(this);
    const c = fx.serve();
    const [a1, a2] = uniqueArgs();
    const { job_id } = await c.call('submit', { run: escaping(a1, a2) });
    const row = await waitStatus(c, job_id, 'RUNNING');
    await waitUntil(() => sleepers(a1).length === 1 && sleepers(a2).length === 1, 5000, 'escaped');
    const escaped = [...sleepers(a1), ...sleepers(a2)];
    process.kill(row.driver_pid, 'SIGKILL');
    await waitStatus(c, job_id, 'FAILED_DRIVER', 5000);
    await waitUntil(() => escaped.every((p) => !isAlive(p)), 3000, 'escaped processes killed');
    await waitUntil(() => jobCgroups(fx.base).length === 0, 5000, 'cgroup removed');
  });

  it('issue 12.8: without a writable cgroup (unprivileged user) a job falls back to the marker scan and says so', async function () {
    needRoot(this); // to become another user
    const base = fx.base; // also the user's home (the jobs' workdir)
    fs.chownSync(base, NOBODY, NOBODY);
    const env = agentEnv({ HOME: base });
    const run = async (args: string[], input?: object) => {
      const r = await runAgent(base, args, { env, uid: NOBODY, gid: NOBODY, input: input ? JSON.stringify(input) : '' });
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      return r.json!.result;
    };
    const status = await run(['status']);
    assert.equal(status.isolation.mechanism, 'marker');
    assert.match(status.isolation.why, /root or a delegated cgroup subtree|cannot create/);
    // A child that leaves the session but keeps the marker is still found.
    const [a1] = uniqueArgs();
    const { job_id } = await run(['submit'], { run: `setsid sleep ${a1} & sleep 600` });
    await waitUntil(() => sleepers(a1).length === 1, 5000, 'escaped child');
    const escaped = sleepers(a1)[0];
    const row = rowsById(await run(['queue'])).get(job_id);
    assert.equal(row.status, 'RUNNING');
    assert.equal(row.isolation, 'marker');
    assert.equal(jobCgroups(base).length, 0);
    await run(['cancel', String(job_id), '--grace', '1']);
    await waitUntil(() => !isAlive(escaped) && markedProcs(base, job_id).length === 0, 3000, 'job gone');
  });
});
