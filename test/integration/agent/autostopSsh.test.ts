import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentClient } from '../../../src/core/jobs';
import { setup, type Env } from '../transport/helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('agent autostop on a real sshd host: an open terminal keeps the cluster up', function () {
  this.timeout(60_000);
  let env: Env;
  let client: AgentClient;
  before(async () => {
    env = await setup(1);
    client = new AgentClient(env.transport(env.hosts[0]));
  });
  after(async () => {
    await client?.close();
    await env?.teardown();
  });

  it('does not stop while someone has a terminal open, and stops once it is closed', async () => {
    const fired = path.join(env.hosts[0].home, 'fired');
    const shell = await env.transport(env.hosts[0]).openShell({ cols: 80, rows: 24 });
    const closed = new Promise((r) => shell.onClose(r));
    await client.configure({
      autostop: { idle_minutes: 0.02, command: ['/bin/sh', '-c', 'date +%s > "$HOME/fired"'] }, // wait_for: jobs_and_ssh
    });
    const st = (await client.status()) as unknown as { autostop: { wait_for: string; fires_in: number | null } };
    assert.equal(st.autostop.wait_for, 'jobs_and_ssh');
    assert.equal(st.autostop.fires_in, null, 'the open terminal counts as activity');
    await sleep(4500); // more than idle time + two daemon ticks
    assert.equal(fs.existsSync(fired), false, 'stopped while a terminal was open');
    shell.write('exit\n');
    await closed;
    const t0 = Date.now();
    while (!fs.existsSync(fired) && Date.now() - t0 < 15_000) await sleep(200);
    assert.ok(fs.existsSync(fired), 'the command ran once the terminal was closed');
  });
});
