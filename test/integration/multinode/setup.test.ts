import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { AgentClient } from '../../../src/core/jobs';
import { clusterKeyComment, setUpWorkers, tearDownWorker, type WorkerNode } from '../../../src/core/ops/clusterNodes';
import type { ClusterRecord } from '../../../src/core/state';
import { setup, type Env } from '../transport/helpers';

const row = (env: Env): ClusterRecord => ({
  name: 'mn', uid: 'uid-1234', provider: 'ssh', region: 'pool', zone: null, status: 'INIT', resources: null, num_nodes: 3,
  head_address: env.hosts[0].address, ssh_user: env.hosts[0].user, ssh_port: env.hosts[0].port, ssh_key_path: null, handle: null,
  launched_at: 0, updated_at: 0, last_error: null, autostop_minutes: null, autostop_down: 0, flags: null,
  created_by_user: null, created_by_machine: null, account: null,
});

describe('multi-node set-up over real SSH: cluster key, pinned worker host keys, gang job', function () {
  this.timeout(120_000);
  let env: Env;
  let head: AgentClient;
  let workers: WorkerNode[];
  before(async () => {
    env = await setup(3);
    head = new AgentClient(env.transport(env.hosts[0]));
    workers = env.hosts.slice(1).map((h) => ({
      host: { address: h.address, port: h.port, user: h.user }, transport: env.transport(h),
    }));
  });
  after(async () => {
    await head?.close();
    await env?.teardown();
  });

  it('a 3-node job runs on head and workers through the key Skydeck installed', async () => {
    const user = env.hosts[0].user;
    const before = fs.readFileSync(`${env.hosts[1].home}/.ssh/authorized_keys`, 'utf8');
    await setUpWorkers(row(env), head, workers);
    const keys = fs.readFileSync(`${env.hosts[1].home}/.ssh/authorized_keys`, 'utf8');
    assert.ok(keys.startsWith(before), 'the existing keys are kept');
    assert.match(keys, new RegExp(`^ssh-ed25519 \\S+ ${clusterKeyComment('uid-1234')}$`, 'm'));
    const headKey = fs.statSync(`${env.hosts[0].home}/.skydeck/cluster_key`);
    assert.equal(headKey.mode & 0o777, 0o600);
    const pinned = fs.readFileSync(`${env.hosts[0].home}/.skydeck/cluster_known_hosts`, 'utf8');
    for (const h of env.hosts.slice(1)) assert.ok(pinned.includes(env.knownHostsLine(h)), pinned);

    const { job_id } = await head.submit({ run: 'echo "r$SKYPILOT_NODE_RANK $(id -un)"', num_nodes: 3, user } as never);
    let final;
    for (const t0 = Date.now(); Date.now() - t0 < 30_000;) {
      final = (await head.queueSnapshot()).find((j) => j.job_id === job_id);
      if (final && ['SUCCEEDED', 'FAILED', 'FAILED_DRIVER', 'FAILED_SETUP'].includes(final.status)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(final?.status, 'SUCCEEDED', JSON.stringify(final));
    for (const rank of [1, 2]) {
      const out: Buffer[] = [];
      await head.followLogs(job_id, (b) => out.push(b), { rank, follow: false });
      assert.equal(Buffer.concat(out).toString(), `r${rank} ${env.hosts[rank].user}\n`);
    }
  });

  it('tearing a worker down removes only the cluster key line and Skydeck\'s directory', async () => {
    await head.cancel({ all: true }, 0);
    await head.shutdown();
    await tearDownWorker(row(env), workers[0]);
    const keys = fs.readFileSync(`${env.hosts[1].home}/.ssh/authorized_keys`, 'utf8');
    assert.doesNotMatch(keys, /skydeck-cluster:/);
    assert.ok(keys.trim().length > 0, 'the harness key is still there');
    assert.equal(fs.existsSync(`${env.hosts[1].home}/.skydeck`), false);
  });

  const keysOf = (h: number) => `${env.hosts[h].home}/.ssh/authorized_keys`;
  const ourLine = (uid: string) => `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBz0s4i8pGq7vH1oQk2pV5y8xYq1cD3f2gH4jK5lM6nO ${clusterKeyComment(uid)}`;

  it('issue 13.7: key removal takes only the line whose whole comment is the cluster\'s', async () => {
    const f = keysOf(2);
    const others = [
      ourLine('uid-12345'), // another cluster whose uid starts with ours
      `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKx user key mentions ${clusterKeyComment('uid-1234')}`,
      `ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ ${clusterKeyComment('uid-1234')}-old`,
    ];
    // Without the line setUpWorkers added on this worker: it goes too.
    const original = fs.readFileSync(f, 'utf8').split('\n').filter((l) => !l.endsWith(` ${clusterKeyComment('uid-1234')}`)).join('\n');
    fs.appendFileSync(f, [ourLine('uid-1234'), ...others].join('\n') + '\n');
    await tearDownWorker(row(env), workers[1]);
    assert.equal(fs.readFileSync(f, 'utf8'), original + others.join('\n') + '\n');
  });

  it('issue 13.7: when the rewrite fails, authorized_keys is left exactly as it was', async () => {
    const f = keysOf(2);
    fs.appendFileSync(f, ourLine('uid-1234') + '\n');
    const before = fs.readFileSync(f, 'utf8');
    const sshDir = `${env.hosts[2].home}/.ssh`;
    fs.chmodSync(sshDir, 0o500); // no temp file can be made beside it
    try {
      await assert.rejects(tearDownWorker(row(env), workers[1]), /removing the cluster key .*could not rewrite|Permission denied/s);
    } finally {
      fs.chmodSync(sshDir, 0o700);
    }
    assert.equal(fs.readFileSync(f, 'utf8'), before);
  });

  it('issue 13.7: a worker that is another cluster\'s head keeps its ~/.skydeck; only this cluster\'s directory goes', async () => {
    const home = env.hosts[2].home;
    fs.mkdirSync(`${home}/.skydeck`, { recursive: true });
    fs.writeFileSync(`${home}/.skydeck/jobs.db`, 'another cluster\'s head state');
    fs.mkdirSync(`${home}/.skydeck/workers/uid-1234`, { recursive: true });
    fs.writeFileSync(`${home}/.skydeck/workers/uid-1234/x`, '');
    fs.mkdirSync(`${home}/.skydeck/workers/uid-9`, { recursive: true });
    const { uid, gid } = fs.statSync(home); // made by this (root) process for the node's user
    for (const p of ['.skydeck', '.skydeck/jobs.db', '.skydeck/workers', '.skydeck/workers/uid-1234', '.skydeck/workers/uid-1234/x', '.skydeck/workers/uid-9']) {
      fs.chownSync(`${home}/${p}`, uid, gid);
    }
    await tearDownWorker(row(env), workers[1]);
    assert.equal(fs.readFileSync(`${home}/.skydeck/jobs.db`, 'utf8'), 'another cluster\'s head state');
    assert.equal(fs.existsSync(`${home}/.skydeck/workers/uid-1234`), false);
    assert.ok(fs.existsSync(`${home}/.skydeck/workers/uid-9`));
  });
});
