import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AGENT_PROTOCOL, type AgentCommand, type AgentCommands } from '../../../src/core/jobs/commands';
import { RESULT_CHECKS } from '../../../src/core/jobs/protocolChecks';
import { AgentRpc } from '../../../src/core/jobs/rpc';
import type { LogEvent } from '../../../src/core/jobs/protocol';
import { createLocalTransport } from '../../../src/core/transport/localTransport';
import { AGENT, agentEnv, cleanupBase, PY, python, waitUntil } from '../agent/helpers';

// Every command's checker against the real agent (agent/skydeck_agent.py serve, run as the
// other agent tests run it): the answers the agent really gives must pass, in the states that
// change their shape (no database yet, running/finished/cancelled jobs, autostop on, a
// recorded self-stop outcome, a stopped stream). AgentRpc checks every answer itself; the
// explicit check here makes a check that rejected nothing impossible to miss.

describe('agent protocol: the real agent answers every command in the checked shape', function () {
  this.timeout(60000);
  let base = '';
  let rpc: AgentRpc;
  const seen = new Set<AgentCommand>();

  async function ask<K extends AgentCommand>(cmd: K, args: AgentCommands[K]['args']): Promise<AgentCommands[K]['result']> {
    const r = await rpc.request(cmd, args);
    assert.equal(RESULT_CHECKS[cmd](r, ''), undefined, `${cmd} answer: ${JSON.stringify(r)}`);
    seen.add(cmd);
    return r;
  }

  const jobStatus = async (id: number) => (await ask('queue', { job_ids: [id] })).rows[0][3];

  before(async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-proto-'));
    const t = createLocalTransport({ env: agentEnv() });
    rpc = new AgentRpc(await t.openChannel([PY, AGENT, '--base', base, 'serve']), t.description);
  });
  after(async () => {
    rpc?.close();
    if (base) await cleanupBase(base);
  });

  it('hello names the protocol this client speaks', async () => {
    const hello = await rpc.hello;
    assert.equal(hello.protocol, AGENT_PROTOCOL);
    assert.equal(hello.base_dir, fs.realpathSync(base));
  });

  it('version, and queue/status before any job', async () => {
    assert.equal((await ask('version', {})).protocol, AGENT_PROTOCOL);
    const q = await ask('queue', {});
    assert.deepEqual([q.db_id, q.rows], [null, []]);
    const s = await ask('status', {});
    assert.equal(s.autostop, null);
    assert.equal(s.running, 0);
  });

  it('configure, submit, queue (full and delta), logs with and without follow, unfollow, tick, cancel', async () => {
    const c = await ask('configure', { cluster_name: 'proto', node_ips: ['127.0.0.1'], capacity: { cpus: 4, memory: 8, accelerators: 'L4:1' } });
    assert.equal(c.capacity_source, 'declared');
    assert.deepEqual(c.capacity.accelerators, { L4: 1 });
    const long = await ask('submit', { name: 'long', run: 'echo started; sleep 30', resources: { cpus: 1, accelerators: { L4: 0.5 } } });
    const short = await ask('submit', { name: 'short', run: 'echo hi; exit 3' });
    await waitUntil(async () => (await jobStatus(short.job_id)) === 'FAILED', 20000, 'short job fails with exit 3');
    await waitUntil(async () => (await jobStatus(long.job_id)) === 'RUNNING', 20000, 'long job runs');
    const full = await ask('queue', {});
    assert.equal(full.full, true);
    assert.equal(full.rows.length, 2);
    const delta = await ask('queue', { since: full.cursor, db_id: full.db_id });
    assert.deepEqual([delta.full, delta.rows], [false, []]);
    assert.equal((await ask('status', {})).running, 1);

    const events: LogEvent[] = [];
    const done = await rpc.start('logs', { job_id: short.job_id, follow: false }, (ev) => events.push(ev)).done;
    seen.add('logs');
    assert.equal(RESULT_CHECKS.logs(done, ''), undefined);
    assert.deepEqual([done.status, done.exit_code, done.terminal], ['FAILED', 3, true]);
    assert.equal(Buffer.concat(events.map((e) => e.data)).toString(), 'hi\n');

    const follow = rpc.start('logs', { job_id: long.job_id, follow: true }, () => undefined);
    await waitUntil(async () => (await ask('unfollow', { request: follow.id })).stopped, 10000, 'the follow stream is open and stops');
    const stopped = await follow.done;
    assert.equal(RESULT_CHECKS.logs(stopped, ''), undefined);
    assert.deepEqual([stopped.stopped, stopped.terminal], [true, false]);
    assert.equal((await ask('unfollow', { request: follow.id })).stopped, false);

    assert.deepEqual((await ask('tick', {})).failed, []);
    const cancelled = await ask('cancel', { job_ids: [long.job_id, short.job_id], grace: 0 });
    assert.deepEqual(cancelled, { cancelled: [long.job_id], already_terminal: [short.job_id], grace: 0 });
    assert.deepEqual((await ask('cancel', { all: true })).cancelled, []);
  });

  it('status with autostop on and a recorded self-stop outcome; shutdown', async () => {
    const c = await ask('configure', { autostop: { idle_minutes: 60, action: 'shutdown', wait_for: 'jobs' } });
    assert.equal(c.autostop?.idle_minutes, 60);
    // What selfstop.py records after a stop that hit a problem (meta autostop_result).
    await python(
      'import json,sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\n' +
        'c.execute("INSERT OR REPLACE INTO meta(key,value) VALUES (?,?)",("autostop_result",json.dumps(' +
        '{"at":1.5,"action":"shutdown","down":False,"done":[],"problems":["worker 1: ssh failed"],"ok":False})))\nc.commit()\n',
      [path.join(base, 'jobs.db')],
    );
    const s = await ask('status', {});
    assert.deepEqual(s.autostop?.last_result?.problems, ['worker 1: ssh failed']);
    assert.equal(typeof s.autostop?.fires_in, 'number');
    await ask('configure', { autostop: null });
    const down = await ask('shutdown', {});
    assert.equal(typeof down.stopped, 'boolean');
  });

  it('covered every command of the map', () => {
    assert.deepEqual([...seen].sort(), Object.keys(RESULT_CHECKS).sort());
  });
});

describe('agent protocol: client and agent agree on the protocol number', () => {
  it('AGENT_PROTOCOL equals PROTOCOL in the shipped agent', () => {
    const init = fs.readFileSync(path.resolve(__dirname, '../../../agent/skydeck_agent_lib/__init__.py'), 'utf8');
    assert.equal(Number(/^PROTOCOL = (\d+)$/m.exec(init)?.[1]), AGENT_PROTOCOL);
  });
});
