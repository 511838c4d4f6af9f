// Waiting for this machine's CPUs to go quiet (from /proc/stat), so that a round of a benchmark
// times its own work and not the tail of the round before (a cancelled job's teardown).
import * as fs from 'node:fs';

function cpuTimes(): { idle: number; total: number } {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  return { idle: f[3] + f[4], total: f.slice(0, 8).reduce((a, b) => a + b, 0) };
}

/**
 * Resolves once a 100 ms window had at least `idleShare` of all CPUs idle, or after `maxMs`
 * (then with false: the machine is busy with something else, and the figure says so).
 */
export async function waitCpuIdle(idleShare = 0.85, maxMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + maxMs;
  let a = cpuTimes();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    const b = cpuTimes();
    const total = b.total - a.total;
    if (total > 0 && (b.idle - a.idle) / total >= idleShare) return true;
    a = b;
  }
  return false;
}
