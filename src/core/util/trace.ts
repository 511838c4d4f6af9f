// Step timestamps for profiling a run (SKYDECK_TRACE=1): one line per step with the wall clock
// (ms, so lines of the thin CLI, the holder's worker and the bench line up), the ms since
// this process's previous step, and this process's CPU ms (user + system) spent since then —
// on a shared machine the wall time is noise, the CPU time is evidence. Off, a step costs one
// env lookup. Steps name phases only, never paths, hosts or values.
const on = (): boolean => process.env.SKYDECK_TRACE === '1';
let last = 0;
let lastCpu = 0;

/** Where lines go: stderr, or the run's own stderr in a holder's worker (worker.ts). */
export const traceSink = { write: (line: string): void => void process.stderr.write(line) };

export function trace(step: string): void {
  if (!on()) return;
  const now = performance.timeOrigin + performance.now();
  const c = process.cpuUsage();
  const cpu = (c.user + c.system) / 1000;
  traceSink.write(`[trace ${process.pid}] ${(now % 100_000).toFixed(1).padStart(8)}  +${(now - (last || now)).toFixed(1).padStart(6)}  cpu +${(cpu - (lastCpu || cpu)).toFixed(1).padStart(6)}  ${step}\n`);
  last = now;
  lastCpu = cpu;
}
