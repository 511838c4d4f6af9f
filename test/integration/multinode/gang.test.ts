import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { markedProcs, waitStatus, waitUntil } from '../../unit/agent/helpers';
import { startGangCluster, type GangCluster } from './agentFixture';

describe('agent: gang jobs on a 3-node cluster (head + 2 sshd workers)', function () {
  this.timeout(90_000);
  let g: GangCluster;
  before(async () => { g = await startGangCluster(); });
  after(async () => { await g?.stop(); });

  const noRanksLeft = async (jobId: number, pattern: string) => {
    await waitUntil(async () => {
      if (markedProcs(g.head.base, jobId).length) return false;
      for (const w of g.workers) if ((await g.workerPids(w, pattern)).length) return false;
      return true;
    }, 20_000, `no process of job ${jobId} on any node`);
  };

  it('runs every rank at once with its rank, the node IPs (head first) and the task envs', async () => {
    const tricky = `it's "$(touch /tmp/pwned)" \`x\``;
    const { job_id } = await g.client.call('submit', {
      num_nodes: 3, resources: { cpus: 1 }, envs: { TRICKY: tricky },
      run: 'echo "rank=$SKYPILOT_NODE_RANK of $SKYPILOT_NUM_NODES skydeck=$SKYDECK_NODE_RANK user=$(id -un)"\n' +
        'echo "ips=$(printf %s "$SKYPILOT_NODE_IPS" | tr "\\n" ,)"\nprintf "%s\\n" "$TRICKY"',
    });
    const row = await waitStatus(g.client, job_id, ['SUCCEEDED', 'FAILED', 'FAILED_DRIVER'], 30_000);
    assert.equal(row.status, 'SUCCEEDED', JSON.stringify(row));
    const ips = ['127.0.0.1', ...g.workers.map((w) => w.address)].join(',');
    for (const rank of [0, 1, 2]) {
      const log = (await g.client.logs({ job_id, rank })).data.toString();
      const user = rank === 0 ? 'root' : g.workers[rank - 1].user;
      assert.ok(log.includes(`rank=${rank} of 3 skydeck=${rank} user=${user}\n`), `rank ${rank}: ${log}`);
      assert.ok(log.includes(`ips=${ips}\n`), `rank ${rank}: ${log}`);
      assert.ok(log.includes(`${tricky}\n`), `rank ${rank}: ${log}`);
    }
    const missing = await g.client.request('logs', { job_id, rank: 'x' });
    assert.equal(missing.ok, false);
  });

  it('issue 13.3: every rank sees the secrets; no file on the head or a worker holds their values', async () => {
    const secret = 'gang-secret-13.3-a7f9e1';
    const sha = execFileSync('sha256sum', { input: secret }).toString().split(' ')[0];
    const { job_id } = await g.client.call('submit', {
      num_nodes: 3, resources: { cpus: 1 }, secrets: { API_TOKEN: secret },
      run: 'echo "rank=$SKYPILOT_NODE_RANK sha=$(printf %s "$API_TOKEN" | sha256sum | cut -d" " -f1)"',
    });
    const row = await waitStatus(g.client, job_id, ['SUCCEEDED', 'FAILED', 'FAILED_DRIVER'], 30_000);
    assert.equal(row.status, 'SUCCEEDED', JSON.stringify(row));
    for (const rank of [0, 1, 2]) {
      assert.ok((await g.client.logs({ job_id, rank })).data.toString().includes(`rank=${rank} sha=${sha}\n`), `rank ${rank}`);
    }
    const dirs = [g.head.base, ...g.workers.map((w) => `${w.home}/.skydeck`)];
    const found = spawnSync('grep', ['-rlF', '--', secret, ...dirs], { encoding: 'utf8' });
    assert.equal(found.status, 1, `files holding the secret: ${found.stdout}${found.stderr}`); // 1: no match anywhere
  });

  it('a worker\'s MOUNT_CACHED cache that does not upload fails its rank, its log naming the mount', async () => {
    // A registered cached mount (agent/README.md, "Cached mounts") whose rclone cache stays dirty;
    // its state dir under <base>/storage, where the client puts it (the agent reads no other).
    const w = g.workers[0];
    const plant = 'mkdir -p ~/.skydeck/storage/cached ~/.skydeck/storage/mstate/cache/vfsMeta/skydeck/b && ' +
      'echo \'{"Dirty": true}\' > ~/.skydeck/storage/mstate/cache/vfsMeta/skydeck/b/f && ' +
      'printf \'{"dst":"/ckpt","stateDir":"%s/.skydeck/storage/mstate","label":"/ckpt: s3://b","timeout_s":0.5}\' "$HOME" > ~/.skydeck/storage/cached/m1.json';
    assert.equal((await w.exec(plant)).code, 0);
    try {
      const { job_id } = await g.client.call('submit', { num_nodes: 3, resources: { cpus: 1 }, run: 'echo ran' });
      const row = await waitStatus(g.client, job_id, ['SUCCEEDED', 'FAILED', 'FAILED_DRIVER'], 30_000);
      assert.equal(row.status, 'FAILED', JSON.stringify(row));
      assert.match(row.reason, /^rank 1 \(.*\) exited with code 1/);
      const log = (await g.client.logs({ job_id, rank: 1 })).data.toString();
      assert.match(log, /^ran\n\[skydeck\] waiting for \/ckpt: s3:\/\/b write cache to upload \(1 file\)\n\[skydeck\] \/ckpt: s3:\/\/b: write cache not uploaded within 0.5 s/);
      assert.doesNotMatch((await g.client.logs({ job_id, rank: 2 })).data.toString(), /waiting for/);
    } finally {
      await w.exec('rm -rf ~/.skydeck/storage');
    }
  });

  it('a gang waits until each of its nodes has room, then starts all ranks', async () => {
    const blocker = (await g.client.call('submit', { run: 'sleep 60', resources: { cpus: 1 } })).job_id;
    await waitStatus(g.client, blocker, 'RUNNING');
    const gang = (await g.client.call('submit', { num_nodes: 3, resources: { cpus: 1 }, run: 'echo started-$SKYPILOT_NODE_RANK' })).job_id;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await waitStatus(g.client, gang, 'PENDING')).status, 'PENDING', 'the head is busy: no rank may start');
    await g.client.call('cancel', { job_ids: [blocker], grace: 0 });
    const row = await waitStatus(g.client, gang, ['SUCCEEDED', 'FAILED', 'FAILED_DRIVER'], 30_000);
    assert.equal(row.status, 'SUCCEEDED', JSON.stringify(row));
    assert.match((await g.client.logs({ job_id: gang, rank: 2 })).data.toString(), /started-2/);
  });

  it('cancel kills the job on every node and nothing else', async () => {
    const { job_id } = await g.client.call('submit', { num_nodes: 3, resources: { cpus: 0.5 }, run: 'sleep 600' });
    const other = (await g.client.call('submit', { num_nodes: 2, resources: { cpus: 0.5 }, run: 'sleep 601' })).job_id;
    await waitStatus(g.client, job_id, 'RUNNING');
    await waitStatus(g.client, other, 'RUNNING');
    for (const w of g.workers) await waitUntil(async () => (await g.workerPids(w, 'sleep 600')).length > 0, 10_000, `rank on ${w.user}`);
    await g.client.call('cancel', { job_ids: [job_id], grace: 1 });
    await noRanksLeft(job_id, 'sleep 600');
    assert.equal((await waitStatus(g.client, job_id, 'CANCELLED')).status, 'CANCELLED');
    assert.equal((await waitStatus(g.client, other, 'RUNNING')).status, 'RUNNING', 'the other gang job is untouched');
    assert.equal((await g.workerPids(g.workers[0], 'sleep 601')).length, 1);
    await g.client.call('cancel', { job_ids: [other], grace: 0 });
    await noRanksLeft(other, 'sleep 601');
  });

  it('one rank failing fails the job, naming the rank, and stops the others', async () => {
    const { job_id } = await g.client.call('submit', {
      num_nodes: 3, resources: { cpus: 1 },
      run: 'if [ "$SKYPILOT_NODE_RANK" = 2 ]; then sleep 1; exit 3; fi; exec sleep 602',
    });
    const row = await waitStatus(g.client, job_id, ['FAILED', 'SUCCEEDED', 'FAILED_DRIVER'], 30_000);
    assert.equal(row.status, 'FAILED');
    assert.equal(row.exit_code, 3);
    assert.match(row.reason, /rank 2 \(worker node 2 \(sdk-.*\)\) exited with code 3/);
    await noRanksLeft(job_id, 'sleep 602');
  });

  it('setup failing on a worker is FAILED_SETUP and run never starts anywhere', async () => {
    const { job_id } = await g.client.call('submit', {
      num_nodes: 3, resources: { cpus: 1 },
      setup: '[ "$SKYPILOT_NODE_RANK" != 1 ] || exit 7', run: 'echo ran-run',
    });
    const row = await waitStatus(g.client, job_id, ['FAILED_SETUP', 'FAILED', 'SUCCEEDED'], 30_000);
    assert.equal(row.status, 'FAILED_SETUP');
    assert.match(row.reason, /setup failed on rank 1 .* code 7/);
    for (const rank of [0, 1, 2]) assert.doesNotMatch((await g.client.logs({ job_id, rank })).data.toString(), /ran-run/);
  });

  it('a worker that restarts mid-job fails it as FAILED_DRIVER, naming the node, and the other ranks stop', async () => {
    const { job_id } = await g.client.call('submit', { num_nodes: 3, resources: { cpus: 1 }, run: 'sleep 603' });
    await waitStatus(g.client, job_id, 'RUNNING');
    await waitUntil(async () => (await g.workerPids(g.workers[1], 'sleep 603')).length > 0, 10_000, 'rank 2 runs');
    await g.workers[1].restart();
    const row = await waitStatus(g.client, job_id, ['FAILED_DRIVER', 'FAILED', 'SUCCEEDED'], 40_000);
    assert.equal(row.status, 'FAILED_DRIVER', JSON.stringify(row));
    assert.ok(row.reason.includes(`${g.workers[1].user}@${g.workers[1].address}`), row.reason);
    await noRanksLeft(job_id, 'sleep 603');
  });

  it('shares one ssh connection per worker, and shutdown closes them before a teardown', async () => {
    const masters = () => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n').filter((l) => l.includes(`${g.head.base}/cm/`) && l.includes('[mux]'));
    const { job_id } = await g.client.call('submit', { num_nodes: 3, resources: { cpus: 1 }, run: 'true' });
    assert.equal((await waitStatus(g.client, job_id, ['SUCCEEDED', 'FAILED', 'FAILED_DRIVER'], 30_000)).status, 'SUCCEEDED');
    assert.equal(masters().length, 2, 'one master connection per worker');
    await g.client.call('shutdown');
    await waitUntil(() => masters().length === 0, 10_000, 'masters closed');
  });
});
