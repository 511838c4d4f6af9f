// GPUs per job on a 3-node cluster (head + 2 sshd workers): the head's fake nvidia-smi reports
// two L4s and every node has the head's devices (agent/README.md, "Limits"), so each rank of a
// gang job gets devices of its own node, numbered as that node numbers them.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { agentEnv, waitStatus, waitUntil } from '../../unit/agent/helpers';
import { startGangCluster, type GangCluster } from './agentFixture';

const FAKE_SMI = `#!/bin/sh
printf '0, GPU-11111111-aaaa, NVIDIA L4, 23034 MiB\\n1, GPU-22222222-bbbb, NVIDIA L4, 23034 MiB\\n'
`;

describe('agent: GPUs per rank of gang jobs (head with a fake nvidia-smi, 2 sshd workers)', function () {
  this.timeout(120_000);
  let g: GangCluster;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-gpus-'));
  before(async () => {
    fs.writeFileSync(path.join(tmp, 'nvidia-smi'), FAKE_SMI, { mode: 0o755 });
    g = await startGangCluster({ cpusPerNode: 4, env: agentEnv({ PATH: `${tmp}:${process.env.PATH}` }) });
  });
  after(async () => {
    await g?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  // Rank 0 (on the head) waits for its go file; the other ranks print and end.
  const gang = (go: string) => ({
    num_nodes: 3, resources: { cpus: 1, accelerators: { L4: 1 } },
    setup: 'echo "setup=[${CUDA_VISIBLE_DEVICES-unset}]"',
    run: `echo "rank=$SKYPILOT_NODE_RANK cvd=[\${CUDA_VISIBLE_DEVICES-unset}]"\n` +
      `if [ "$SKYPILOT_NODE_RANK" = 0 ]; then while [ ! -e ${JSON.stringify(go)} ]; do sleep 0.1; done; fi`,
  });
  const rankLine = async (job_id: number, rank: number): Promise<string> => {
    let log = '';
    await waitUntil(async () => {
      log = (await g.client.logs({ job_id, rank })).data.toString();
      return /cvd=\[/.test(log);
    }, 30_000, `rank ${rank} of job ${job_id} printed its devices`);
    return log;
  };

  it('each rank gets its own node\'s devices; a job finds none free until a gang ends', async () => {
    const goA = path.join(tmp, 'go-a');
    const a = (await g.client.call('submit', gang(goA))).job_id;
    const b = (await g.client.call('submit', gang(path.join(tmp, 'go-b')))).job_id;
    for (const rank of [0, 1, 2]) {
      const la = await rankLine(a, rank);
      assert.ok(la.includes(`rank=${rank} cvd=[0]\n`), `job a rank ${rank}: ${la}`);
      assert.ok(la.includes('setup=[unset]\n'), `setup sees every device: ${la}`);
      assert.ok((await rankLine(b, rank)).includes(`rank=${rank} cvd=[1]\n`), `job b rank ${rank}`);
    }
    const c = await g.client.call('submit', { run: 'echo "cvd=[$CUDA_VISIBLE_DEVICES]"', resources: { cpus: 1, accelerators: { L4: 1 } } });
    assert.equal(c.status, 'PENDING', 'every node\'s two GPUs are held');
    fs.writeFileSync(goA, '');
    assert.equal((await waitStatus(g.client, a, ['SUCCEEDED', 'FAILED', 'FAILED_DRIVER'], 30_000)).status, 'SUCCEEDED');
    assert.equal((await waitStatus(g.client, c.job_id, ['SUCCEEDED', 'FAILED', 'FAILED_DRIVER'], 30_000)).status, 'SUCCEEDED');
    assert.ok((await rankLine(c.job_id, 0)).includes('cvd=[0]\n'), 'job c got the device job a freed');
    fs.writeFileSync(path.join(tmp, 'go-b'), '');
    assert.equal((await waitStatus(g.client, b, ['SUCCEEDED', 'FAILED', 'FAILED_DRIVER'], 30_000)).status, 'SUCCEEDED');
  });
});
