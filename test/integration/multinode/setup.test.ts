import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { AgentClient } from '../../../src/core/jobs';
import { clusterKeyComment, setUpWorkers, tearDownWorker, type WorkerNode } from '../../../src/core/ops/clusterNodes';
import type { ClusterRecord } from '../../../src/core/state';
import { setup, type Env } from '../transport/helpers';

const row = (env: Env): ClusterRecord => ({
  name: 'mn', uid: 'uid-1234', provider: 'ssh', region: 'pool', zone: null, status: 'INIT', resources: null, num_nodes: 3,
  head_address: env.hosts[0].address, ssh_user: env.hosts[0].user, ssh_port: env.hosts[0].port, ssh_key_path: null, handle: null,
  launched_at: 0, updated_at: 0, last_error: null, autostop_minutes: null, autostop_down: 0, flags: null, account: null,
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
});
