import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  AgentFixture,
  isAlive,
  Json,
  markedProcs,
  orphanParent,
  procStat,
  rowsById,
  ServeClient,
  sleep,
  waitStatus,
  waitUntil,
} from './helpers';

async function byId(c: ServeClient): Promise<Map<number, Json>> {
  return rowsById(await c.call('queue', {}));
}

describe('agent scheduler', function () {
  this.timeout(60000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  it('32 running + 200 queued: finishing and cancelling frees slots in order, nothing else is touched, no chaining', async () => {
    const c = fx.serve();
    await c.hello;
    const flags = path.join(fx.base, 'flags');
    fs.mkdirSync(flags);
    await c.call('configure', { capacity: { cpus: 32 } });
    const spec = {
      run: 'while [ ! -e "$FLAGS/$SKYDECK_JOB_ID" ]; do sleep 0.5; done; echo finished',
      envs: { FLAGS: flags },
      resources: { cpus: 1 },
    };
    const ids: number[] = (await Promise.all(Array.from({ length: 232 }, () => c.call('submit', spec)))).map(
      (r: Json) => r.job_id,
    );
    assert.equal(new Set(ids).size, 232);
    ids.sort((a, b) => a - b);
    const first = ids.slice(0, 32);
    const agentPid = c.proc.pid!;
    const reaper = await orphanParent();

    const running = async (expect: number[]) => {
      await waitUntil(
        async () => {
          const rows = await byId(c);
          return expect.every((id) => rows.get(id).status === 'RUNNING' && rows.get(id).driver_pid);
        },
        15000,
        `jobs ${expect[0]}..${expect[expect.length - 1]} running`,
      );
      const rows = await byId(c);
      const drivers = new Set(expect.map((id) => rows.get(id).driver_pid as number));
      for (const id of expect) {
        const st = procStat(rows.get(id).driver_pid)!;
        assert.ok(st, `driver of ${id} exists`);
        // Own session and group; parent is init (or the subreaper), never the agent or a driver.
        assert.equal(st.sid, st.pid);
        assert.equal(st.pgid, st.pid);
        assert.ok(st.ppid === 1 || st.ppid === reaper, `driver ${st.pid} of job ${id} has parent ${st.ppid}`);
        assert.notEqual(st.ppid, agentPid);
        assert.ok(!drivers.has(st.ppid));
      }
      return rows;
    };

    let rows = await running(first);
    assert.equal([...rows.values()].filter((r) => r.status === 'RUNNING').length, 32);
    assert.equal([...rows.values()].filter((r) => r.status === 'PENDING').length, 200);

    // Finish 8: the next 8 in submission order start.
    for (const id of first.slice(0, 8)) fs.writeFileSync(path.join(flags, String(id)), '');
    for (const id of first.slice(0, 8)) await waitStatus(c, id, 'SUCCEEDED');
    await running([...first.slice(8), ...ids.slice(32, 40)]);

    // Cancel 8 others: they die, the next 8 start, and no other job is disturbed.
    const victims = first.slice(8, 16);
    const victimPids = markedProcs(fx.base).filter((p) => victims.includes(p.jobId)).map((p) => p.pid);
    assert.ok(victimPids.length >= 16);
    const cancel = await c.call('cancel', { job_ids: victims, grace: 2 });
    assert.deepEqual(cancel.cancelled, victims);
    await waitUntil(() => victimPids.every((p) => !isAlive(p)), 5000, 'cancelled jobs exited');
    const nowRunning = [...first.slice(16), ...ids.slice(32, 48)];
    rows = await running(nowRunning);

    // A few daemon sweeps later: still no collateral damage anywhere.
    await sleep(1000);
    rows = await byId(c);
    const count = (s: string) => [...rows.values()].filter((r) => r.status === s).length;
    assert.equal(count('FAILED_DRIVER'), 0);
    assert.equal(count('SUCCEEDED'), 8);
    assert.equal(count('CANCELLED'), 8);
    assert.equal(count('RUNNING'), 32);
    assert.equal(count('PENDING'), 184);
    for (const id of nowRunning) assert.equal(rows.get(id).status, 'RUNNING');
    const alive = new Set(markedProcs(fx.base).map((p) => p.jobId));
    for (const id of nowRunning) assert.ok(alive.has(id), `job ${id} still has processes`);
    for (const id of victims) assert.ok(!alive.has(id));
  });

  it('starts every pending job that fits, in submission order (CPUs)', async () => {
    const c = fx.serve();
    await c.call('configure', { capacity: { cpus: 2 } });
    const gate = path.join(fx.base, 'gate');
    const wait = (n: string) => `while [ ! -e '${gate}${n}' ]; do sleep 0.05; done`;
    const a = (await c.call('submit', { run: wait('a'), resources: { cpus: 2 } })).job_id;
    const b = (await c.call('submit', { run: wait('b'), resources: { cpus: 2 } })).job_id;
    const cc = (await c.call('submit', { run: wait('c'), resources: { cpus: 1 } })).job_id;
    const d = (await c.call('submit', { run: wait('d'), resources: { cpus: 1 } })).job_id;
    await waitStatus(c, a, 'RUNNING');
    assert.equal((await byId(c)).get(b).status, 'PENDING');
    fs.writeFileSync(gate + 'a', '');
    await waitStatus(c, b, 'RUNNING');
    let rows = await byId(c);
    assert.equal(rows.get(cc).status, 'PENDING');
    assert.equal(rows.get(d).status, 'PENDING');
    fs.writeFileSync(gate + 'b', '');
    await waitStatus(c, cc, 'RUNNING');
    await waitStatus(c, d, 'RUNNING');
    rows = await byId(c);
    const st = await c.call('status');
    assert.equal(st.used.cpus, 2);
    assert.equal(st.capacity.cpus, 2);
    assert.equal(st.capacity_source, 'declared');
    assert.equal(st.running, 2);
  });

  it('a job whose scripts cannot be written is FAILED_DRIVER naming why; the others of its batch start', async () => {
    const c = fx.serve();
    await c.call('configure', { capacity: { cpus: 3 } });
    const gate = path.join(fx.base, 'gate');
    const blocker = (await c.call('submit', { run: `while [ ! -e '${gate}' ]; do sleep 0.05; done`, resources: { cpus: 3 } })).job_id;
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await c.call('submit', { run: 'sleep 30', resources: { cpus: 1 } })).job_id);
    await waitStatus(c, blocker, 'RUNNING');
    // Its files were staged while it waited (stage.py); the intermediate that starts it checks
    // them: a directory where its run.sh goes fails that.
    const script = path.join(fx.base, 'jobs', String(ids[1]), 'run.sh');
    await waitUntil(() => fs.existsSync(path.join(fx.base, 'logs', String(ids[1]), 'run.log')), 5000, 'staged');
    fs.rmSync(script);
    fs.mkdirSync(script);
    fs.writeFileSync(path.join(script, 'x'), '');
    fs.writeFileSync(gate, '');
    const failed = await waitStatus(c, ids[1], 'FAILED_DRIVER');
    assert.match(failed.reason, /^could not prepare the job: .*Is a directory/);
    await waitStatus(c, ids[0], 'RUNNING');
    await waitStatus(c, ids[2], 'RUNNING');
    await c.call('cancel', { job_ids: [ids[0], ids[2]], grace: 0 });
  });

  it('fractional accelerators: four L4:0.25 jobs share one L4, the fifth waits', async () => {
    const c = fx.serve();
    await c.call('configure', { capacity: { cpus: 8, accelerators: { L4: 1 } } });
    const gate = path.join(fx.base, 'gate');
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const spec = {
        run: `while [ ! -e '${gate}${i}' ]; do sleep 0.05; done`,
        // Both spellings are accepted; names compare case-insensitively.
        resources: { cpus: 1, accelerators: i % 2 ? 'l4:0.25' : { L4: 0.25 } },
      };
      ids.push((await c.call('submit', spec)).job_id);
    }
    for (const id of ids.slice(0, 4)) await waitStatus(c, id, 'RUNNING');
    assert.equal((await byId(c)).get(ids[4]).status, 'PENDING');
    const st = await c.call('status');
    assert.ok(Math.abs(st.used.accelerators.L4 - 1) < 1e-9, JSON.stringify(st.used));
    fs.writeFileSync(gate + '0', '');
    await waitStatus(c, ids[4], 'RUNNING');
    const rows = await byId(c);
    assert.deepEqual(rows.get(ids[4]).accelerators, { L4: 0.25 });
    assert.deepEqual(rows.get(ids[1]).accelerators, { l4: 0.25 });
    // More than the node has can never run: refused at submit, nothing inserted.
    const r = await c.request('submit', { run: 'true', resources: { accelerators: 'L4:2' } });
    assert.equal(r.ok, false);
    assert.equal(r.error!.code, 'unschedulable');
    assert.equal((await byId(c)).size, 5);
  });

  it('capacity is detected from the node when not declared', async () => {
    const c = fx.serve();
    const st = await c.call('status');
    assert.equal(st.capacity_source, 'detected');
    assert.ok(st.capacity.cpus >= 1);
    assert.ok(st.capacity.memory > 0);
    assert.equal(st.running, 0);
  });
});
