import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import YAML from 'yaml';
import { cancel, exec, launch, logs, queue, status } from '../../../src/core/ops';
import { agentHash, agentSourceDir } from '../../../src/core/jobs/agentBundle';
import { shellQuote } from '../../../src/core/transport';
import { testOps, TestOps, waitFor, writeTask } from './helpers';
import { sshFixture, type SshFixture } from './sshFixture';
import { prng } from '../../support/prng';


const NASTY = [`'`, `"`, '`', '$', '$(', ')', '${HOME}', '\\', '\n', '\t', ' ', ';', '&&', '|', '*', '?', '~', '#', '!', '%', '{', '}', '-', '=', 'é', '日本', '🚀', 'a', 'Z', '0', '\r', '<', '>', '$((1+1))', "'\"'\"'"];

function nasty(rand: () => number, maxParts: number, ban: RegExp = /$^/): string {
  let s = '';
  const n = 1 + Math.floor(rand() * maxParts);
  for (let i = 0; i < n; i++) s += NASTY[Math.floor(rand() * NASTY.length)];
  s = s.replace(ban, '_');
  return s || 'x';
}

describe('ops over ssh: concurrency, dropped connections, quoting, agent upgrade', function () {
  this.timeout(240_000);
  let fx: SshFixture;
  let ops: TestOps;
  before(async () => {
    fx = await sshFixture(1);
  });
  after(async () => {
    await fx?.cleanup(ops);
    await fx?.env.stop();
  });

  it('launches a cluster on the pool host', async () => {
    ops = await fx.ops('known');
    const t = writeTask(ops.workspaceRoot, 'up.yaml', 'resources: {cloud: ssh}\nrun: echo up\n');
    const r = await launch(ops, { taskFile: t, cluster: 'rob' });
    assert.equal(r.final?.status, 'SUCCEEDED');
  });

  it('200 concurrent execs (each syncing a workdir) all succeed with distinct ids', async () => {
    const ws = ops.workspaceRoot;
    fs.mkdirSync(path.join(ws, 'wd'), { recursive: true });
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(ws, 'wd', `f${i}.txt`), `file ${i}\n`.repeat(100));
    const t = writeTask(ws, 'many.yaml', 'workdir: wd\nresources: {cpus: 0.01}\nrun: cat f7.txt | head -1\n');
    const t0 = Date.now();
    const results = await Promise.allSettled(Array.from({ length: 200 }, () => exec(ops, { cluster: 'rob', taskFile: t, detach: true })));
    console.log(`      (200 execs submitted in ${Date.now() - t0} ms)`);
    const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    assert.equal(failed.length, 0, `failures: ${failed.slice(0, 3).map((f) => f.reason?.message).join(' | ')}`);
    const ids = results.map((r) => (r as PromiseFulfilledResult<{ jobId: number }>).value.jobId);
    assert.equal(new Set(ids).size, 200);
    const done = await waitFor('all 200 jobs to finish', async () => {
      const q = (await queue(ops, 'rob')).filter((j) => ids.includes(j.job_id));
      return q.every((j) => j.status === 'SUCCEEDED') && q;
    }, 120_000);
    assert.equal(done.length, 200);
    let out = '';
    await logs(ops, { cluster: 'rob', jobId: ids[199], onOutput: (d) => (out += d) });
    assert.equal(out, 'file 7\n', 'the workdir arrived whole despite 200 concurrent syncs');
  });

  it('a log follow survives the SSH connection being killed, byte-exact', async () => {
    const ws = ops.workspaceRoot;
    const t = writeTask(ws, 'chatty.yaml', [
      'run: |',
      '  i=0; pad=$(head -c 300 /dev/zero | tr "\\0" x)',
      '  while [ $i -lt 200 ]; do printf "line %05d \\r progress %s\\n" $i "$pad"; i=$((i+1)); [ $((i % 10)) -eq 0 ] && sleep 0.1; done',
    ].join('\n'));
    const { jobId } = await exec(ops, { cluster: 'rob', taskFile: t, detach: true });
    const chunks: Buffer[] = [];
    let killing: Promise<number> | undefined;
    let reconnects = 0;
    const host = fx.env.hosts[0];
    const final = await logs(ops, {
      cluster: 'rob', jobId,
      onOutput: (d) => {
        chunks.push(Buffer.from(d));
        if (chunks.length === 2) killing = host.killConnections();
      },
      onReconnect: () => reconnects++,
    });
    assert.equal(final.final?.status, 'SUCCEEDED');
    // The kill is awaited here: the follow may have ended before its count came back.
    assert.ok(((await killing) ?? 0) > 0, 'a connection was really killed');
    assert.ok(reconnects > 0, 'the follower noticed and reconnected');
    const onHost = await host.exec(`cat ~/.skydeck/logs/${jobId}/run.log | base64 -w0`);
    assert.deepEqual(Buffer.concat(chunks), Buffer.from(onHost.stdout, 'base64'));
  });

  it('quoting fuzz: 2,000 random names, env values, commands and paths arrive byte-exact', async () => {
    const rand = prng(20261130);
    const ws = ops.workspaceRoot;
    const wd = path.join(ws, 'fuzzwd');
    fs.mkdirSync(wd);
    const fileNames = new Set<string>();
    while (fileNames.size < 200) fileNames.add(nasty(rand, 6, /[/\0\n\r]|^\.\.?$/g).slice(0, 60));
    for (const f of fileNames) fs.writeFileSync(path.join(wd, f), f);
    let strings = fileNames.size;
    const jobs: { id: number; name: string; expected: Buffer }[] = [];
    for (let j = 0; j < 70; j++) {
      const name = nasty(rand, 8, /\0/g);
      const envs: Record<string, string> = {};
      for (let k = 0; k < 25; k++) envs[`V${k}`] = nasty(rand, 10, /\0/g);
      const literal = nasty(rand, 12, /\0/g);
      strings += 1 + 25 + 1;
      const run = `printf '%s\\0' ${Object.keys(envs).map((k) => `"$${k}"`).join(' ')}\nprintf '%s' ${shellQuote(literal)}`;
      const file = writeTask(ws, `fz${j}.yaml`, YAML.stringify({ name, workdir: j === 0 ? 'fuzzwd' : undefined, envs, run }));
      const r = await exec(ops, { cluster: 'rob', taskFile: file, detach: true });
      jobs.push({ id: r.jobId, name, expected: Buffer.from(Object.values(envs).map((v) => `${v}\0`).join('') + literal) });
    }
    assert.ok(strings >= 2000, `fuzzed ${strings} strings`);
    // The workdir's odd file names, listed on the host by the shell itself.
    const listing = await fx.env.hosts[0].exec(`cd ~/sky_workdir && for f in *; do printf '%s\\0' "$f"; done`);
    const remoteNames = new Set(listing.stdout.split('\0').filter(Boolean));
    for (const f of fileNames) assert.ok(remoteNames.has(f), `file ${JSON.stringify(f)} arrived`);
    const q = await waitFor('fuzz jobs done', async () => {
      const rows = (await queue(ops, 'rob')).filter((x) => jobs.some((j) => j.id === x.job_id));
      return rows.every((x) => x.status === 'SUCCEEDED') && rows;
    }, 60_000);
    for (const j of jobs) {
      assert.equal(q.find((x) => x.job_id === j.id)?.name, j.name, `name of job ${j.id}`);
      const chunks: Buffer[] = [];
      await logs(ops, { cluster: 'rob', jobId: j.id, onOutput: (d) => chunks.push(Buffer.from(d)) });
      assert.deepEqual(Buffer.concat(chunks), j.expected, `output of job ${j.id}`);
    }
  });

  it('a changed agent is re-uploaded on the next call and queued jobs survive', async () => {
    const ws = ops.workspaceRoot;
    const blocker = writeTask(ws, 'block.yaml', 'resources: {cpus: 1000}\nrun: sleep 60\n');
    await assert.rejects(exec(ops, { cluster: 'rob', taskFile: blocker, detach: true }), /more than this node has/);
    const [st] = await status(ops, { refresh: true });
    assert.equal(st.live?.running, 0);
    const cpus = Number(((await ops.connections.client(st.cluster).status()) as { capacity: { cpus: number } }).capacity.cpus);
    const holder = writeTask(ws, 'hold.yaml', `resources: {cpus: ${cpus}}\nrun: sleep 60\n`);
    const waiter = writeTask(ws, 'wait.yaml', 'resources: {cpus: 1}\nrun: echo "ran after the upgrade"\n');
    const h = await exec(ops, { cluster: 'rob', taskFile: holder, detach: true });
    const w = await exec(ops, { cluster: 'rob', taskFile: waiter, detach: true });
    await waitFor('holder running', async () => (await queue(ops, 'rob')).find((j) => j.job_id === h.jobId)?.status === 'RUNNING');
    assert.equal((await queue(ops, 'rob')).find((j) => j.job_id === w.jobId)?.status, 'PENDING');

    // A "new release" of the agent: same code plus one line, so its hash differs.
    const newDir = path.join(ws, 'agent-next');
    fs.cpSync(agentSourceDir(), newDir, { recursive: true });
    fs.appendFileSync(path.join(newDir, 'skydeck_agent.py'), '# next release\n');
    assert.notEqual(agentHash(newDir), agentHash(agentSourceDir()));
    // Another window (same workspace and state) running the new release.
    fs.mkdirSync(path.join(ws, 'no-ssh'), { recursive: true });
    const sshDefaults = { agent: false as const, userKnownHostsFiles: [], sshDir: path.join(ws, 'no-ssh') };
    const next = await testOps({ root: ws, pools: [fx.pool], connections: { agentDir: newDir, sshDefaults } });
    try {
      const client = next.connections.client((await status(next))[0].cluster);
      const loc = await client.connect();
      assert.equal(loc.uploaded, true, 'the changed agent was uploaded');
      const remoteHash = (await fx.env.hosts[0].exec('cat ~/.skydeck/agent/.hash')).stdout.trim();
      assert.equal(remoteHash, agentHash(newDir));
      const rows = await queue(next, 'rob');
      assert.equal(rows.find((j) => j.job_id === h.jobId)?.status, 'RUNNING', 'the running job kept running');
      assert.equal(rows.find((j) => j.job_id === w.jobId)?.status, 'PENDING', 'the queued job is still queued');
      await cancel(next, 'rob', { jobIds: [h.jobId] }, 1);
      let out = '';
      const fin = await logs(next, { cluster: 'rob', jobId: w.jobId, onOutput: (d) => (out += d) });
      assert.equal(fin.final?.status, 'SUCCEEDED');
      assert.equal(out, 'ran after the upgrade\n');
    } finally {
      await next.connections.closeAll();
      next.store.close();
    }
  });
});
