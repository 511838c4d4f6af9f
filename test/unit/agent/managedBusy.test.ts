// The autostop busy rule of a managed-jobs controller node: the agent reads the controller's
// store (written here by the real ManagedStore, as the controller writes it) and counts the node
// busy while any managed job is unfinished — not terminal, or its cluster not yet torn down —
// though the agent itself runs no job. Then idle from the last managed change; it fires once.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ManagedStore } from '../../../src/core/managed/store';
import { insertJob, moveJob } from '../../../src/core/managed/jobRows';
import { AgentFixture, agentEnv, sleep, waitUntil } from './helpers';

const env = agentEnv({ SKYDECK_TICK_INTERVAL: '0.1' });

describe('agent autostop on a managed-jobs controller node (managed_jobs_db)', function () {
  this.timeout(40_000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());
  const fires = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).length : 0);

  it('busy while a managed job is unfinished or still owns its cluster; idle after, and fires once', async () => {
    const storeFile = path.join(fx.base, 'home', '.skydeck', 'managed.db');
    const store = await ManagedStore.open(storeFile);
    const c = fx.serve(env);
    const file = path.join(fx.base, 'fired');
    try {
      const id = await store.write((db) => insertJob(db, { name: 'm', tasks: ['run: true'], envs: {}, now: Date.now(), creator: { user: 'u', machine: '0'.repeat(32) } }));
      await store.write((db) => moveJob(db, id, 'STARTING', 'launching', Date.now(), { clusterName: 'job-1' }));
      await store.write((db) => moveJob(db, id, 'RUNNING', 'running', Date.now()));
      await c.call('configure', { autostop: { idle_minutes: 0.02, command: ['/bin/sh', '-c', 'echo x >> "$1"', 'sh', file], wait_for: 'jobs', managed_jobs_db: storeFile } });
      await sleep(2500); // twice the idle time: only the managed job keeps it from firing
      let st = (await c.call('status')).autostop;
      assert.equal(st.managed_jobs_db, storeFile);
      assert.equal(st.idle_seconds, null, 'busy: a managed job is RUNNING');
      assert.equal(fires(file), 0);
      // Terminal, but its cluster not yet torn down: still busy (the controller must tear it down).
      await store.write((db) => moveJob(db, id, 'SUCCEEDED', 'done', Date.now()));
      await sleep(2000);
      assert.equal((await c.call('status')).autostop.idle_seconds, null, 'busy: the job still owns cluster job-1');
      assert.equal(fires(file), 0);
      const t0 = Date.now() / 1000;
      await store.write((db) => moveJob(db, id, 'SUCCEEDED', 'cluster down', Date.now(), { clusterName: null }));
      st = (await c.call('status')).autostop;
      assert.ok(st.idle_seconds !== null && st.idle_seconds < 1, `idle counted from the last managed change (${st.idle_seconds} s)`);
      await waitUntil(() => fires(file) === 1, 10_000, 'the stop after the last managed job ended');
      assert.ok(Date.now() / 1000 - t0 >= 1.1, 'not before the idle time passed');
      await sleep(1000);
      assert.equal(fires(file), 1, 'once per idle period');
    } finally {
      store.close();
    }
  });

  it('a store that cannot be read keeps the node up; no store yet is no managed job; bad paths are refused', async () => {
    const c = fx.serve(env);
    const file = path.join(fx.base, 'fired');
    const bad = path.join(fx.base, 'garbage.db');
    fs.writeFileSync(bad, 'not a database at all, and long enough to have a header of its own......');
    const cmd = ['/bin/sh', '-c', 'echo x >> "$1"', 'sh', file];
    await c.call('configure', { autostop: { idle_minutes: 0.02, command: cmd, wait_for: 'jobs', managed_jobs_db: bad } });
    await sleep(2000);
    assert.equal((await c.call('status')).autostop.idle_seconds, null, 'unreadable: busy');
    assert.equal(fires(file), 0);
    await c.call('configure', { autostop: { idle_minutes: 0.02, command: cmd, wait_for: 'jobs', managed_jobs_db: path.join(fx.base, 'none', 'managed.db') } });
    await waitUntil(() => fires(file) === 1, 10_000, 'the stop with no store');
    for (const p of ['relative/managed.db', '', 7, 'a\u0000b']) {
      const r = await c.request('configure', { autostop: { idle_minutes: 1, command: cmd, managed_jobs_db: p } });
      assert.equal(r.ok, false, JSON.stringify(p));
      assert.match(r.error!.message, /autostop\.managed_jobs_db must be an absolute path \(or ~\/\.\.\.\)/);
    }
  });
});
