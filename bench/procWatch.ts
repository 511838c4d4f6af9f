// Process watching shared by bench/agent.ts and its task-spooler peer (bench/tspWorkloads.ts).
import * as fs from 'node:fs';

function listPids(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((n) => n.charCodeAt(0) >= 48 && n.charCodeAt(0) <= 57)
    .map(Number);
}

/**
 * Counts processes that started after construction and now run `sleep ARG` with `needle` in
 * their environment. Cheap enough to poll every few ms without stealing the CPU the agent
 * and the jobs need (only new pids are read, environ only once a cmdline matches).
 */
export class SleepWatch {
  private readonly before = new Set(listPids());
  private readonly matched = new Set<number>();
  constructor(
    private readonly arg: string,
    private readonly needle: string,
  ) {}

  count(): number {
    const want = `sleep\0${this.arg}\0`;
    for (const pid of listPids()) {
      if (this.before.has(pid) || this.matched.has(pid)) continue;
      try {
        if (fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1') !== want) continue;
        if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(this.needle)) this.matched.add(pid);
      } catch {
        /* gone */
      }
    }
    return this.matched.size;
  }
}

export function pssMb(pid: number): number {
  try {
    const s = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const m = /^Pss:\s+(\d+) kB/m.exec(s);
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

