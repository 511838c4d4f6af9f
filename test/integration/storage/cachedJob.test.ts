// MOUNT_CACHED end to end on a test host: the real agent runs a job that writes through a real
// rclone cached mount (moto S3 behind a proxy that holds the upload); the job stays RUNNING until
// the object is in the bucket, then SUCCEEDED.
import assert from 'node:assert/strict';
import { ensureAgent, type AgentLocation } from '../../../src/core/jobs/bootstrap';
import { listCachedMounts, mountBucket, registerCachedMount, unmountBucket, unregisterCachedMount, type NodeMount } from '../../../src/core/storage';
import { shellQuote } from '../../../src/core/transport/shellQuote';
import { requireStorageTools, startStorageEnv, type StorageEnv } from './env';
import { startHoldingProxy, type HoldingProxy } from './holdingProxy';

describe('storage: a job on a MOUNT_CACHED mount ends after its upload (real agent, FUSE, moto S3)', function () {
  this.timeout(120_000);
  let env: StorageEnv;
  let proxy: HoldingProxy;
  let agent: AgentLocation;

  before(async function () {
    requireStorageTools(this);
    env = await startStorageEnv();
    proxy = await startHoldingProxy(env.moto.url);
    await env.s3.createBucket('jobs');
    agent = await ensureAgent(env.t);
  });
  after(async () => {
    await proxy?.close();
    await env?.teardown();
  });

  const call = async (args: string[], input?: unknown): Promise<any> => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const r = await env.t.exec([agent.python, agent.entry, '--base', agent.base, ...args], { stdin: input === undefined ? '' : JSON.stringify(input) });
    const out = JSON.parse(r.stdout.toString());
    assert.ok(out.ok, r.stdout.toString());
    return out.result;
  };
  const statusOf = async (id: number): Promise<{ status: string; reason: string | null }> => {
    const q = await call(['queue', String(id)]);
    const row = q.rows.find((r: unknown[]) => r[q.columns.indexOf('job_id')] === id);
    return { status: row[q.columns.indexOf('status')], reason: row[q.columns.indexOf('reason')] };
  };
  const until = async <T>(what: string, fn: () => Promise<T | undefined>): Promise<T> => {
    for (let i = 0; i < 600; i++) {
      const v = await fn();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`gave up waiting for ${what}`);
  };

  it('held upload: RUNNING with the waiting line; released: SUCCEEDED and the object is in the bucket', async () => {
    const m: NodeMount = { dst: '~/ckpt', mode: 'MOUNT_CACHED', target: { store: 's3', bucket: 'jobs', prefix: 'run1' } };
    const h = await mountBucket(env.context({ endpoint: proxy.url }), m);
    await registerCachedMount(env.t, agent.base, h, 60_000);
    assert.deepEqual((await listCachedMounts(env.t, agent.base)).map((e) => [e.dst, e.label, e.timeout_s]), [[h.mountPoint, h.label, 60]]);
    proxy.hold((method, path) => method === 'PUT' && path.startsWith('/jobs/run1/model.bin'));
    const { job_id } = await call(['submit'], { run: `head -c 300000 /dev/zero | tr '\\0' k > ${shellQuote(`${h.mountPoint}/model.bin`)}; echo wrote` });
    await proxy.held();
    const log = await until('the waiting line', async () => {
      const r = await env.t.exec(['cat', `${agent.base}/logs/${job_id}/run.log`]);
      return /waiting for/.test(r.stdout.toString()) ? r.stdout.toString() : undefined;
    });
    assert.match(log, /^wrote\n\[skydeck\] waiting for ~\/ckpt: s3:\/\/jobs\/run1 write cache to upload \(1 file\)\n/);
    assert.equal((await statusOf(job_id)).status, 'RUNNING');
    assert.equal(await env.s3.get('jobs', 'run1/model.bin'), undefined);
    proxy.release();
    const end = await until('the job to end', async () => {
      const s = await statusOf(job_id);
      return ['RUNNING', 'PENDING', 'SETTING_UP'].includes(s.status) ? undefined : s;
    });
    assert.deepEqual(end, { status: 'SUCCEEDED', reason: null });
    assert.equal((await env.s3.get('jobs', 'run1/model.bin'))?.toString(), 'k'.repeat(300000));
    await unregisterCachedMount(env.t, agent.base, h);
    assert.deepEqual(await listCachedMounts(env.t, agent.base), []);
    await unmountBucket(env.t, h);
  });
});
