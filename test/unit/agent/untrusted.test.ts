import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentFixture, agentEnv, waitStatus, waitUntil } from './helpers';

// Issue 13: what a task or another user of the node can read or redirect through the agent.

/** Every regular file under dir, recursively. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

function holders(dir: string, needle: string): string[] {
  return filesUnder(dir).filter((f) => readIfThere(f)?.includes(Buffer.from(needle)));
}

/** A file the agent renames into place (daemon.pid.tmp) may be gone between listing and reading. */
function readIfThere(f: string): Buffer | undefined {
  try {
    return fs.readFileSync(f);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe('issue 13: agent files, secrets and self-stop hooks', function () {
  this.timeout(30000);
  const fx = new AgentFixture();
  let scratch = '';
  beforeEach(() => {
    fx.setup();
    scratch = fs.mkdtempSync(`${fx.base}-out-`);
  });
  afterEach(async () => {
    await fx.cleanup();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('issue 13.3: the base dir is 0700 and every file the agent made under it is 0600', async () => {
    fs.chmodSync(fx.base, 0o755); // as an older agent left it
    const c = fx.serve();
    const { job_id } = await c.call('submit', { setup: 'true', run: 'echo hi', envs: { A: '1' } });
    await waitStatus(c, job_id, 'SUCCEEDED');
    assert.equal(mode(fx.base), 0o700);
    const files = filesUnder(fx.base);
    for (const f of ['jobs.db', 'env.json', `logs/${job_id}/run.log`, `jobs/${job_id}/run.sh`, `jobs/${job_id}/setup.sh`]) {
      assert.ok(files.includes(path.join(fx.base, f)), `${f} exists`);
    }
    for (const f of files) assert.equal(mode(f).toString(8), '600', f);
  });

  it("issue 13.3: the job's own commands still create files with the client's umask", async () => {
    const c = fx.serve();
    const out = path.join(scratch, 'mask');
    const { job_id } = await c.call('submit', { run: `umask > '${out}'` });
    await waitStatus(c, job_id, 'SUCCEEDED');
    const ours = process.umask();
    assert.equal(parseInt(fs.readFileSync(out, 'utf8').trim(), 8), ours);
  });

  it('issue 13.3: a secret value is in no file under the base once the job started, and the job sees it', async () => {
    const secret = 'sk-live-0123456789abcdef-13.3';
    const c = fx.serve();
    const seen = path.join(scratch, 'seen');
    const { job_id } = await c.call('submit', {
      run: `printf %s "$API_KEY" > '${seen}'; echo "length \${#API_KEY}"`, secrets: { API_KEY: secret }, envs: { PLAIN: 'x' },
    });
    await waitStatus(c, job_id, 'SUCCEEDED');
    assert.equal(fs.readFileSync(seen, 'utf8'), secret);
    assert.deepEqual(holders(fx.base, secret), []);
    assert.ok(holders(fx.base, 'API_KEY').some((f) => f.endsWith('jobs.db') || f.endsWith('jobs.db-wal')), 'the name is recorded');
  });

  it('issue 13.3: a job that waits PENDING keeps its secret in a 0600 file until it starts, then nowhere', async () => {
    const secret = 'pending-secret-value-13.3-xyz';
    const c = fx.serve();
    await c.call('configure', { capacity: { cpus: 1 } });
    const gate = path.join(scratch, 'gate');
    const seen = path.join(scratch, 'seen');
    const first = await c.call('submit', { run: `while [ ! -e '${gate}' ]; do sleep 0.05; done`, resources: { cpus: 1 } });
    const second = await c.call('submit', { run: `printf %s "$TOKEN" > '${seen}'`, resources: { cpus: 1 }, secrets: { TOKEN: secret } });
    assert.equal(second.status, 'PENDING');
    const waiting = holders(fx.base, secret);
    assert.deepEqual(waiting, [path.join(fx.base, 'pending', `${second.job_id}.json`)]);
    assert.equal(mode(waiting[0]), 0o600);
    // The serve session that submitted it goes away: the job is started by a driver's report.
    c.kill();
    fs.writeFileSync(gate, '');
    const c2 = fx.serve();
    await waitStatus(c2, first.job_id, 'SUCCEEDED');
    await waitStatus(c2, second.job_id, 'SUCCEEDED');
    assert.equal(fs.readFileSync(seen, 'utf8'), secret);
    assert.deepEqual(holders(fx.base, secret), []);
  });

  it('issue 13.3: a secret of a job cancelled while PENDING is removed too', async () => {
    const secret = 'cancelled-secret-13.3';
    const c = fx.serve();
    await c.call('configure', { capacity: { cpus: 1 } });
    const gate = path.join(scratch, 'gate');
    await c.call('submit', { run: `while [ ! -e '${gate}' ]; do sleep 0.05; done`, resources: { cpus: 1 } });
    const waiting = await c.call('submit', { run: 'true', resources: { cpus: 1 }, secrets: { S: secret } });
    await c.call('cancel', { job_ids: [waiting.job_id] });
    fs.writeFileSync(gate, '');
    await c.call('tick');
    await waitUntil(async () => holders(fx.base, secret).length === 0, 10_000, 'the pending secret is gone');
  });

  // The self-stop's test hooks. PATH gets stand-ins for sudo and shutdown, so a hook that is
  // (rightly) ignored can never shut this machine down.
  const stubs = () => {
    const bin = path.join(scratch, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    for (const n of ['sudo', 'shutdown']) {
      fs.writeFileSync(path.join(bin, n), `#!/bin/sh\necho "${n} $*" >> '${path.join(scratch, 'real-shutdown')}'\n`, { mode: 0o755 });
    }
    return { PATH: `${bin}:${process.env.PATH}`, HOME: scratch };
  };

  it('issue 13.8: the self-stop ignores hooks in its own environment (a task env) and uses the client\'s', async () => {
    const env = agentEnv({ ...stubs(), SKYDECK_SHUTDOWN_COMMAND: 'echo client >> "$HOME/ran"' });
    await fx.cli(['status'], undefined, env);
    // What a self-stop descending from a job's driver would carry: the task's envs.
    const taskEnv = agentEnv({ ...stubs(), SKYDECK_SHUTDOWN_COMMAND: 'echo task >> "$HOME/ran"' });
    const r = await fx.run(['_selfstop'], { env: taskEnv });
    assert.equal(r.code, 0, r.stdout.toString());
    assert.equal(fs.readFileSync(path.join(scratch, 'ran'), 'utf8'), 'client\n');
    assert.equal(mode(path.join(fx.base, 'test-hooks.json')), 0o600);
  });

  it('issue 13.8: an agent call from inside a job (it carries the job marker) records no hook', async () => {
    await fx.cli(['status'], undefined, agentEnv({ ...stubs(), SKYDECK_SHUTDOWN_COMMAND: 'echo client >> "$HOME/ran"' }));
    const c = fx.serve(agentEnv(stubs()));
    const { job_id } = await c.call('submit', {
      run: `python3 '${path.resolve(__dirname, '../../../agent/skydeck_agent.py')}' --base '${fx.base}' status >/dev/null`,
      envs: { SKYDECK_SHUTDOWN_COMMAND: 'echo task >> "$HOME/ran"', SKYDECK_GCE_API_URL: 'http://127.0.0.1:9/evil' },
    });
    await waitStatus(c, job_id, 'SUCCEEDED');
    const hooks = JSON.parse(fs.readFileSync(path.join(fx.base, 'test-hooks.json'), 'utf8'));
    assert.deepEqual(hooks, { SKYDECK_SHUTDOWN_COMMAND: 'echo client >> "$HOME/ran"' });
  });
});
