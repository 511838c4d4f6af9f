import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentFixture, agentEnv, sleep, waitStatus, waitUntil } from './helpers';

// A fast daemon tick so idle periods of a second or two can be observed.
const env = agentEnv({ SKYDECK_TICK_INTERVAL: '0.1' });

describe('agent autostop', function () {
  this.timeout(30_000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  const fires = (file: string): number[] =>
    fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(Number) : [];
  const command = (file: string) => ['/bin/sh', '-c', 'date +%s.%N >> "$1"', 'sh', file];

  it('runs the configured command once the cluster has been idle long enough, once per idle period', async () => {
    const c = fx.serve(env);
    const file = path.join(fx.base, 'fired');
    const t0 = Date.now() / 1000;
    await c.call('configure', { autostop: { idle_minutes: 0.02, command: command(file), wait_for: 'jobs' } });
    await waitUntil(() => fires(file).length === 1, 10_000, 'the command ran');
    assert.ok(fires(file)[0] - t0 >= 1.1, `fired ${fires(file)[0] - t0} s after configure, before 1.2 s of idleness`);
    await sleep(1500);
    assert.equal(fires(file).length, 1, 'it runs once per idle period');
    const st = (await c.call('status')).autostop;
    assert.equal(st.idle_minutes, 0.02);
    assert.ok(st.fired_at > 0);
    assert.match(fs.readFileSync(path.join(fx.base, 'autostop.log'), 'utf8'), /idle: running/);
  });

  it('a job arriving before the deadline cancels the pending stop; the clock restarts when it ends', async () => {
    const c = fx.serve(env);
    const file = path.join(fx.base, 'fired');
    await c.call('configure', { autostop: { idle_minutes: 0.04, command: command(file), wait_for: 'jobs' } });
    await sleep(1200);
    const { job_id } = await c.call('submit', { run: 'sleep 2' });
    const st = (await c.call('status')).autostop;
    assert.equal(st.fires_in, null, 'busy: no stop is pending');
    const done = await waitStatus(c, job_id, 'SUCCEEDED', 10_000);
    await waitUntil(() => fires(file).length === 1, 10_000, 'the command ran after the job');
    assert.ok(fires(file)[0] - done.ended_at >= 2.3, `fired ${fires(file)[0] - done.ended_at} s after the job ended`);
  });

  it('turning it off (null) stops it; bad settings are refused with what is wrong', async () => {
    const c = fx.serve(env);
    const file = path.join(fx.base, 'fired');
    await c.call('configure', { autostop: { idle_minutes: 0.02, command: command(file) } });
    await c.call('configure', { autostop: null });
    await sleep(2000);
    assert.deepEqual(fires(file), []);
    assert.equal((await c.call('status')).autostop, null);
    for (const [bad, why] of [
      [{ idle_minutes: -1, command: ['true'] }, /idle_minutes/],
      [{ idle_minutes: 5, command: [] }, /command/],
      [{ idle_minutes: 5, command: ['true'], wait_for: 'never' }, /wait_for/],
      ['soon', /autostop must be an object/],
    ] as const) {
      const r = await c.request('configure', { autostop: bad });
      assert.equal(r.ok, false);
      assert.match(r.error!.message, why);
    }
  });
});
