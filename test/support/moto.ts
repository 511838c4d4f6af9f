// The EC2 API emulator (moto) for the AWS tests: one server per test file on 127.0.0.1.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';

export interface MotoServer {
  url: string;
  port: number;
  /** Wipes every resource (POST /moto-api/reset). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** Dummy credentials: moto accepts anything, and no real key is ever used by the tests. */
export const DUMMY_CREDENTIALS = { accessKeyId: 'AKIDSKYDECKTEST', secretAccessKey: 'skydeck-test-secret' };

let missing: string | null | undefined;

/** Why moto cannot run here (undefined when it can); checked once per process. */
export function motoMissing(): string | undefined {
  if (missing === undefined) {
    const r = spawnSync('python3', ['-c', 'import moto, moto.server, flask; print(moto.__version__)'], { encoding: 'utf8', timeout: 30_000 });
    missing = r.status === 0 ? null : `python3 cannot import moto.server (${(r.stderr || r.error?.message || 'no python3').trim().split('\n').pop()})`;
  }
  return missing ?? undefined;
}

let announced = false;

/**
 * For a mocha `before` hook: skips the suite when moto is missing, with ONE loud line for the
 * whole run (the other AWS suites then skip quietly; mocha lists each as pending and the
 * counting reporter reports them as skipped, never passed).
 */
export function skipWithoutMoto(ctx: Mocha.Context): void {
  const why = motoMissing();
  if (!why) return;
  if (!announced) {
    announced = true;
    console.error(`\n!!! SKIPPING the AWS EC2 tests (test/integration/aws/*.test.ts: launch, stop/start, down, spot, security groups, key pairs, catalog fetch, error mapping, fault-proxy failover, provision loop): ${why}. Install moto 5.x with server extras (pip install "moto[server]==5.2.1") to run them.\n`);
  }
  ctx.skip();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`moto exited (${child.exitCode}): ${log()}`);
    try {
      const r = await fetch(`${url}/moto-api/`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`moto did not answer within 20 s: ${log()}`);
}

/** Starts moto with real AMI and instance-type validation, in its own process group. */
export async function startMoto(): Promise<MotoServer> {
  const port = await freePort();
  const child = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    detached: true, stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MOTO_ENABLE_AMI_VALIDATION: 'true', MOTO_EC2_ENABLE_INSTANCE_TYPE_VALIDATION: 'true' },
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(url, child, () => stderr);
  } catch (e) {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
    throw e;
  }
  return {
    url, port,
    reset: async () => {
      const r = await fetch(`${url}/moto-api/reset`, { method: 'POST' });
      if (!r.ok) throw new Error(`moto reset: HTTP ${r.status}`);
    },
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null || !child.pid) return resolve();
      child.once('exit', () => resolve());
      process.kill(-child.pid, 'SIGTERM');
      setTimeout(() => { if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL'); }, 3000).unref();
    }),
  };
}
