// GPUs per job on a real sshd host whose PATH has a fake `nvidia-smi` reporting two L4s: the
// agent (installed and run by the real client) pins jobs to devices through CUDA_VISIBLE_DEVICES.
// The PATH reaches the agent the way a login's would: ~/.ssh/environment (PermitUserEnvironment).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentClient } from '../../../src/core/jobs';
import type { JobRow } from '../../../src/core/jobs/protocol';
import { setup, type Env } from '../transport/helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Answers only the query the agent is meant to make, and counts its calls.
const FAKE_SMI = `#!/bin/sh
echo call >> "$HOME/smi-calls"
[ "$1" = "--query-gpu=index,uuid,name,memory.total" ] && [ "$2" = "--format=csv,noheader" ] || exit 9
printf '0, GPU-11111111-aaaa, NVIDIA L4, 23034 MiB\\n1, GPU-22222222-bbbb, NVIDIA L4, 23034 MiB\\n'
`;

// Setup prints what it sees (SkyPilot: every GPU, the variable unset); run prints its devices,
// then waits for its go file.
const job = (acc: Record<string, number> | null, extra: Record<string, unknown> = {}) => ({
  setup: 'echo "setup=[${CUDA_VISIBLE_DEVICES-unset}]"',
  run: 'echo "cvd=[${CUDA_VISIBLE_DEVICES-unset}]"; while [ ! -e "$HOME/go-$SKYDECK_JOB_ID" ]; do sleep 0.1; done',
  resources: acc ? { cpus: 0.1, accelerators: acc } : { cpus: 0.1 },
  ...extra,
});

describe('GPUs per job on a real sshd host with a fake nvidia-smi (2 GPUs)', function () {
  this.timeout(120_000);
  let env: Env;
  let client: AgentClient;
  let home: string;
  const logOf = (id: number) => path.join(home, '.skydeck', 'logs', String(id), 'run.log');
  const read = (id: number) => (fs.existsSync(logOf(id)) ? fs.readFileSync(logOf(id), 'utf8') : '');
  const cvd = async (id: number): Promise<string> => {
    for (let t0 = Date.now(); Date.now() - t0 < 30_000; await sleep(100)) {
      const m = /cvd=\[(.*)\]/.exec(read(id));
      if (m) return m[1];
    }
    throw new Error(`job ${id} printed no cvd line:\n${read(id)}`);
  };
  const row = async (id: number): Promise<JobRow> => (await client.queueSnapshot()).find((j) => j.job_id === id)!;
  const finish = async (id: number) => {
    fs.writeFileSync(path.join(home, `go-${id}`), '');
    for (let t0 = Date.now(); Date.now() - t0 < 30_000; await sleep(100)) {
      if ((await row(id)).status === 'SUCCEEDED') return;
    }
    throw new Error(`job ${id} did not finish: ${JSON.stringify(await row(id))}`);
  };
  const smiCalls = () => fs.readFileSync(path.join(home, 'smi-calls'), 'utf8').split('\n').filter(Boolean).length;

  before(async () => {
    env = await setup(1, { sshdConfig: ['PermitUserEnvironment yes'] });
    const h = env.hosts[0];
    home = h.home;
    const bin = path.join(home, 'fake bin'); // a space: the PATH entry must survive quoting
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'nvidia-smi'), FAKE_SMI, { mode: 0o755 });
    fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
    fs.writeFileSync(path.join(home, '.ssh', 'environment'), `PATH=${bin}:/usr/local/bin:/usr/bin:/bin\n`);
    execFileSync('chown', ['-R', `${h.user}:`, bin, path.join(home, '.ssh', 'environment')]);
    client = new AgentClient(env.transport(h));
  });
  after(async () => {
    try {
      if (client) {
        await client.cancel({ all: true }, 0);
        await client.shutdown().catch(() => undefined);
      }
    } finally {
      await client?.close();
      await env?.teardown();
    }
  });

  it('whole GPUs are distinct, a third waits for one to end; no-GPU jobs see none; setup sees all', async () => {
    const st = (await client.configure({ capacity: { cpus: 8 } })) as unknown as {
      capacity: { accelerators: Record<string, number> };
      devices: { index: number; uuid: string; model: string }[];
    };
    assert.deepEqual(st.capacity.accelerators, { L4: 2 });
    assert.deepEqual(st.devices.map((d) => [d.index, d.uuid, d.model]), [[0, 'GPU-11111111-aaaa', 'L4'], [1, 'GPU-22222222-bbbb', 'L4']]);

    const a = (await client.submit(job({ L4: 1 }))).job_id;
    const b = (await client.submit(job({ l4: 1 }))).job_id;
    const c = await client.submit(job({ L4: 1 }));
    assert.equal(c.status, 'PENDING', 'both GPUs are held');
    assert.deepEqual([await cvd(a), await cvd(b)].sort(), ['0', '1']);
    assert.match(read(a), /setup=\[unset\]/, 'setup runs with every GPU visible, as in SkyPilot');

    const none = (await client.submit(job(null))).job_id;
    assert.equal(await cvd(none), '', 'a job without accelerators sees no GPU (set, empty)');
    const own = (await client.submit(job(null, { envs: { CUDA_VISIBLE_DEVICES: '7' } }))).job_id;
    assert.equal(await cvd(own), '7', "the job's own envs win");

    const freed = await cvd(a);
    await finish(a);
    assert.equal(await cvd(c.job_id), freed, 'the waiting job got the device the first one freed');
    for (const id of [b, c.job_id, none, own]) await finish(id);
    assert.equal(smiCalls(), 1, 'nvidia-smi ran once, not per job');
  });

  it('two 0.5 jobs share a device, the third goes to the next; a whole-GPU job then waits', async () => {
    const f = [];
    for (let i = 0; i < 3; i++) f.push((await client.submit(job({ L4: 0.5 }))).job_id);
    assert.deepEqual([await cvd(f[0]), await cvd(f[1]), await cvd(f[2])], ['0', '0', '1']);
    const whole = await client.submit(job({ L4: 1 }));
    assert.equal(whole.status, 'PENDING', 'no device is wholly free');
    await finish(f[2]);
    assert.equal(await cvd(whole.job_id), '1');
    for (const id of [f[0], f[1], whole.job_id]) await finish(id);
  });

  it('bad accelerator input is refused at submit and queues nothing', async () => {
    const before = (await client.queueSnapshot()).length;
    const cases: [Record<string, number>, string][] = [
      [{ L4: -1 }, 'invalid_spec'], [{ L4: 1.5 }, 'invalid_spec'], [{ 'L4"$(id)': 1 }, 'invalid_spec'],
      [{ "L4'": 1 }, 'invalid_spec'], [{ L4: 1e9 }, 'unschedulable'], [{ L4: 3 }, 'unschedulable'],
    ];
    for (const [acc, code] of cases) {
      await assert.rejects(client.submit(job(acc)), (e: { code?: string }) => e.code === code, JSON.stringify(acc));
    }
    assert.equal((await client.queueSnapshot()).length, before);
  });

  it('a driver killed with SIGKILL gives its device back; refresh re-runs nvidia-smi once', async () => {
    const a = (await client.submit(job({ L4: 2 }))).job_id;
    assert.equal(await cvd(a), '0,1');
    const waiting = await client.submit(job({ L4: 1 }));
    assert.equal(waiting.status, 'PENDING');
    const pid = (await row(a)).driver_pid!;
    const k = await env.hosts[0].exec(`/bin/kill -KILL -- -${pid}`); // the driver's whole group
    assert.equal(k.code, 0, k.stderr);
    for (let t0 = Date.now(); (await row(a)).status !== 'FAILED_DRIVER'; await sleep(200)) {
      assert.ok(Date.now() - t0 < 30_000, 'the killed job was not marked FAILED_DRIVER');
    }
    assert.equal(await cvd(waiting.job_id), '0', 'the waiting job started on the freed device');
    await finish(waiting.job_id);
    const before = smiCalls();
    await client.configure({ detect: true });
    assert.equal(smiCalls(), before + 1);
  });
});
