// CPU time spent by each side of a benchmark, as the kernel accounts it: a figure that the
// load of other programs on the machine does not move, unlike wall-clock time. A container's
// processes share one cgroup, which the scheduler weighs as a single task against the host's
// processes, so on a loaded host wall-clock ratios measure that weighting, not the work done.
// Needs a cgroup v1 `cpuacct` hierarchy that this process may write (root): the bench moves
// itself into its own accounting group there (cpuacct alone changes no scheduling), so every
// process it starts — the plain cluster's agent, drivers and jobs — is counted in it.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const CPUACCT = '/sys/fs/cgroup/cpuacct';

export interface CpuAccount {
  /** Nanoseconds of CPU used so far by this process and everything it started. */
  self(): number;
  /** Nanoseconds of CPU used so far by a container's processes. */
  container(runtime: string, name: string): number;
  close(): void;
}

/** The accounting, or why there is none on this machine. */
export function openCpuAccount(): CpuAccount | { problem: string } {
  if (!fs.existsSync(path.join(CPUACCT, 'cpuacct.usage'))) return { problem: `no cgroup v1 cpuacct hierarchy at ${CPUACCT}` };
  const own = path.join(CPUACCT, `skydeck-bench-${process.pid}`);
  const before = fs.readFileSync('/proc/self/cgroup', 'utf8').match(/^\d+:(?:[^:]*,)?cpuacct(?:,[^:]*)?:(.*)$/m)?.[1] ?? '/';
  try {
    fs.mkdirSync(own);
    fs.writeFileSync(path.join(own, 'cgroup.procs'), String(process.pid));
  } catch (e) {
    return { problem: `cannot make an accounting group under ${CPUACCT}: ${(e as Error).message}` };
  }
  const usage = (dir: string) => Number(fs.readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8'));
  return {
    self: () => usage(own),
    container(runtime, name) {
      const pid = execFileSync(runtime, ['inspect', '--format', '{{.State.Pid}}', name], { encoding: 'utf8' }).trim();
      const rel = fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').match(/^\d+:(?:[^:]*,)?cpuacct(?:,[^:]*)?:(.*)$/m)?.[1];
      if (!rel) throw new Error(`container ${name} has no cpuacct cgroup`);
      return usage(path.join(CPUACCT, rel));
    },
    close() {
      // Back where it was; the group is removed once empty (detached agents may still be in it).
      try { fs.writeFileSync(path.join(CPUACCT, before, 'cgroup.procs'), String(process.pid)); fs.rmdirSync(own); } catch { /* in use: left for the next boot */ }
    },
  };
}
