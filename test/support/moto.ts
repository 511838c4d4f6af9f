// The EC2 API emulator (moto) for the AWS tests: one server per test file on 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import { findMotoPython } from '../../scripts/moto-python.mjs';
import { skipOrFailWithout } from './ci';

export interface MotoServer {
  url: string;
  port: number;
  /** Wipes every resource (POST /moto-api/reset). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** Dummy credentials: moto accepts anything, and no real key is ever used by the tests. */
export const DUMMY_CREDENTIALS = { accessKeyId: 'AKIDSKYDECKTEST', secretAccessKey: 'skydeck-test-secret' };

let found: ReturnType<typeof findMotoPython> | undefined;

/** The interpreter that runs moto here (see scripts/moto-python.mjs); looked up once per process. */
function motoPython(): ReturnType<typeof findMotoPython> {
  if (!found) {
    found = findMotoPython();
    // Say which one this run used: PATH's python3 is not the same interpreter everywhere.
    if (found.python) console.error(`  (moto ${found.version}: ${found.python})`);
  }
  return found;
}

/** Why moto cannot run here (undefined when it can). */
export function motoMissing(): string | undefined {
  return motoPython().missing;
}

/**
 * For a mocha `before` hook: without moto the AWS suites fail under CI, and skip (one loud
 * line for the whole run; mocha lists them as pending, never passed) in a developer's run.
 */
export function skipWithoutMoto(ctx: Mocha.Context): void {
  const why = motoMissing();
  if (why) skipOrFailWithout(ctx, 'the AWS EC2 tests (test/integration/aws/*.test.ts)', why);
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

/**
 * Starts moto with real AMI and instance-type validation, in its own process group. `env` adds
 * to moto's environment, e.g. INITIAL_NO_AUTH_ACTION_COUNT=0 to check credentials.
 */
export async function startMoto(opts: { env?: Record<string, string> } = {}): Promise<MotoServer> {
  const { python, missing: why } = motoPython();
  if (!python) throw new Error(why);
  const port = await freePort();
  const child = spawn(python, ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    detached: true, stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MOTO_ENABLE_AMI_VALIDATION: 'true', MOTO_EC2_ENABLE_INSTANCE_TYPE_VALIDATION: 'true', ...opts.env },
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
