// SSH transport figures against a real sshd test host on loopback (needs root + openssh-server).
// Run: npx tsx bench/ssh-transport.ts   — prints one JSON line per figure.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHosts } from '../test/hosts';
import { SshPool, SshTransport } from '../src/core/transport';
import { runBench } from './runBench';

function emit(figure: string, value: number, unit: string, extra: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ bench: 'ssh-transport', figure, value: Math.round(value * 100) / 100, unit, ...extra })}\n`);
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function main(): Promise<void> {
  const env = await startHosts(1);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-'));
  const host = env.hosts[0];
  const pool = new SshPool();
  const t = new SshTransport({
    host: host.address, port: host.port, user: host.user, keyFile: env.clientKeyPath, agent: false,
    userKnownHostsFiles: [], knownHostsFile: path.join(tmp, 'known_hosts'), trustOnFirstUse: true,
  }, pool);
  try {
    let t0 = performance.now();
    await t.exec(['true']);
    emit('connect_and_first_exec_ms', performance.now() - t0, 'ms');

    const lat: number[] = [];
    for (let i = 0; i < 50; i++) {
      t0 = performance.now();
      await t.exec(['true']);
      lat.push(performance.now() - t0);
    }
    emit('exec_latency_p50_ms', percentile(lat, 50), 'ms', { n: 50 });
    emit('exec_latency_p95_ms', percentile(lat, 95), 'ms', { n: 50 });

    t0 = performance.now();
    await Promise.all(Array.from({ length: 200 }, (_, i) => t.exec(['printf', '%s', String(i)])));
    emit('concurrent_200_execs_per_s', 200 / ((performance.now() - t0) / 1000), 'execs/s');

    t0 = performance.now();
    const big = await t.execShell('head -c 52428800 /dev/zero');
    emit('stdout_throughput', big.stdout.length / 1048576 / ((performance.now() - t0) / 1000), 'MB/s', { mb: 50 });

    const file = path.join(tmp, 'up.bin');
    fs.writeFileSync(file, randomBytes(20 * 1048576));
    t0 = performance.now();
    await t.upload(file, 'up.bin');
    emit('upload_throughput', 20 / ((performance.now() - t0) / 1000), 'MB/s', { mb: 20 });
    const sum = (await host.exec('sha256sum < ~/up.bin')).stdout.split(' ')[0];
    if (sum !== createHash('sha256').update(fs.readFileSync(file)).digest('hex')) throw new Error('upload corrupted');

    await host.killConnections();
    t0 = performance.now();
    await t.exec(['true']);
    emit('reconnect_after_drop_ms', performance.now() - t0, 'ms');
  } finally {
    await t.close();
    await pool.closeAll();
    await env.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

runBench(main);
