// Wall time per test file, hooks included (a file's before/after hooks are where sshd hosts,
// emulators and the kit start): from the first start of one of its suites to the last end.
// The counting reporter prints the slowest of them, so a slow suite points at its files.
// With SKYDECK_TEST_CPUACCT naming a cgroup's cpuacct.usage (the run put in a cgroup of its
// own: scripts/cpu-lanes.sh), each file also gets the CPU its whole process tree used, sshd
// hosts and containers included: on a CPU-bound machine that, not wall time, is what to cut.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** CPU ns used so far by the cgroup named in SKYDECK_TEST_CPUACCT, or undefined. */
function cgroupCpuNs(file = process.env.SKYDECK_TEST_CPUACCT) {
  if (!file) return undefined;
  try {
    return Number(fs.readFileSync(file, 'utf8').trim());
  } catch {
    return undefined;
  }
}

class FileTimes {
  constructor(now = () => performance.now(), cpuNs = cgroupCpuNs) {
    this.now = now;
    this.cpuNs = cpuNs;
    /** file → { start, end } in ms */
    this.spans = new Map();
  }

  suiteStart(suite) {
    if (!suite.file) return;
    const t = this.now();
    const s = this.spans.get(suite.file);
    if (s) s.start = Math.min(s.start, t);
    else {
      const c = this.cpuNs();
      this.spans.set(suite.file, { start: t, end: t, cpu0: c, cpu1: c });
    }
  }

  suiteEnd(suite) {
    const s = suite.file && this.spans.get(suite.file);
    if (!s) return;
    s.end = Math.max(s.end, this.now());
    s.cpu1 = this.cpuNs();
  }

  /** The `n` slowest files, slowest first, as printable lines (paths relative to cwd). */
  slowest(n, cwd = process.cwd()) {
    return this.lines(n, cwd, (a, b) => b.ms - a.ms);
  }

  /** The `n` files that used the most CPU (empty when not measured), as printable lines. */
  heaviest(n, cwd = process.cwd()) {
    const rows = this.lines(n, cwd, (a, b) => (b.cpu ?? 0) - (a.cpu ?? 0));
    return [...this.spans.values()].some((s) => s.cpu0 !== undefined) ? rows : [];
  }

  lines(n, cwd, order) {
    return [...this.spans.entries()]
      .map(([file, s]) => ({ file: path.relative(cwd, file) || file, ms: s.end - s.start, cpu: s.cpu0 === undefined || s.cpu1 === undefined ? undefined : (s.cpu1 - s.cpu0) / 1e9 }))
      .sort((a, b) => order(a, b) || a.file.localeCompare(b.file))
      .slice(0, n)
      .map((f) => `${(f.ms / 1000).toFixed(1).padStart(8)} s  ${f.cpu === undefined ? '' : `${f.cpu.toFixed(1).padStart(7)} cpu-s  `}${f.file}`);
  }
}
module.exports = { FileTimes };
