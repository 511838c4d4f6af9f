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
      [{ idle_minutes: 5 }, /exactly one of command \(argv\) or action/],
      [{ idle_minutes: 5, command: ['true'], action: 'shutdown' }, /exactly one of command/],
      [{ idle_minutes: 5, action: 'halt' }, /action must be one of shutdown, gcp, azure/],
      [{ idle_minutes: 5, command: ['true'], hold_seconds: 86401 }, /hold_seconds must be a number of seconds between 0 and 86400/],
      [{ idle_minutes: 5, command: ['true'], hold_seconds: '60' }, /hold_seconds must be a number/],
      ['soon', /autostop must be an object/],
    ] as const) {
      const r = await c.request('configure', { autostop: bad });
      assert.equal(r.ok, false);
      assert.match(r.error!.message, why);
    }
  });

  // The self-stop with `action`: the shutdown is replaced by a harmless command (the variable is
  // the agent's test hook); HOME is the scratch dir so "$HOME/..." stays inside it.
  const selfStopEnv = (extra: Record<string, string> = {}) => ({
    ...env, HOME: fx.base, SKYDECK_SHUTDOWN_COMMAND: 'date +%s >> "$HOME/shutdown-ran"', ...extra,
  });
  const lastResult = async (c: ReturnType<AgentFixture['serve']>) => {
    const st = (await c.call('status')).autostop;
    return st.last_result as { ok: boolean; action: string; done: string[]; problems: string[] } | null;
  };

  it('action "shutdown" shuts the head down itself and records what it did', async () => {
    const c = fx.serve(selfStopEnv());
    await c.call('configure', { autostop: { idle_minutes: 0.01, action: 'shutdown', wait_for: 'jobs' } });
    assert.equal((await c.call('status')).autostop.action, 'shutdown');
    await waitUntil(async () => (await lastResult(c)) !== null, 10_000, 'the self-stop ran');
    const r = (await lastResult(c))!;
    assert.deepEqual([r.ok, r.action, r.done, r.problems], [true, 'shutdown', ['head'], []]);
    assert.equal(fires(path.join(fx.base, 'shutdown-ran')).length, 1);
    assert.match(fs.readFileSync(path.join(fx.base, 'autostop.log'), 'utf8'), /self-stop: shutdown\n.*shut down the head/s);
  });

  it('a failing shutdown is recorded as a problem, with its exit and message', async () => {
    const c = fx.serve(selfStopEnv({ SKYDECK_SHUTDOWN_COMMAND: 'echo "shutdown: permission denied" >&2; exit 4' }));
    await c.call('configure', { autostop: { idle_minutes: 0.01, action: 'shutdown', wait_for: 'jobs' } });
    await waitUntil(async () => (await lastResult(c)) !== null, 10_000, 'the self-stop ran');
    const r = (await lastResult(c))!;
    assert.equal(r.ok, false);
    assert.deepEqual(r.problems, ['the head: exit 4: shutdown: permission denied']);
  });

  it('GCP autodown with no metadata server: says why and shuts the node down instead (stopped, not left running)', async () => {
    const c = fx.serve(selfStopEnv({ SKYDECK_GCE_METADATA_URL: 'http://127.0.0.1:9/computeMetadata/v1' }));
    await c.call('configure', { autostop: { idle_minutes: 0.01, action: 'gcp', down: true, wait_for: 'jobs' } });
    await waitUntil(async () => (await lastResult(c)) !== null, 15_000, 'the self-stop ran');
    const r = (await lastResult(c))!;
    assert.equal(r.ok, false);
    assert.match(r.problems[0], /^metadata instance\/service-accounts\/default\/token: HTTP unreachable/);
    assert.deepEqual(r.done, ['head']);
    assert.equal(fires(path.join(fx.base, 'shutdown-ran')).length, 1);
  });

  it('Azure with no instance metadata: says why and does not shut down (a shut-down VM still bills)', async () => {
    const c = fx.serve(selfStopEnv({ SKYDECK_AZURE_IMDS_URL: 'http://127.0.0.1:9/metadata' }));
    await c.call('configure', { autostop: { idle_minutes: 0.01, action: 'azure', wait_for: 'jobs' } });
    await waitUntil(async () => (await lastResult(c)) !== null, 15_000, 'the self-stop ran');
    const r = (await lastResult(c))!;
    assert.equal(r.ok, false);
    assert.match(r.problems[0], /^instance metadata identity\/oauth2\/token: HTTP unreachable/);
    assert.deepEqual(r.done, []);
    assert.equal(fs.existsSync(path.join(fx.base, 'shutdown-ran')), false);
  });
});
