// Wall time per test file, hooks included (a file's before/after hooks are where sshd hosts,
// emulators and the kit start): from the first start of one of its suites to the last end.
// The counting reporter prints the slowest of them, so a slow suite points at its files.
'use strict';
const path = require('node:path');

class FileTimes {
  constructor(now = () => performance.now()) {
    this.now = now;
    /** file → { start, end } in ms */
    this.spans = new Map();
  }

  suiteStart(suite) {
    if (!suite.file) return;
    const t = this.now();
    const s = this.spans.get(suite.file);
    if (s) s.start = Math.min(s.start, t);
    else this.spans.set(suite.file, { start: t, end: t });
  }

  suiteEnd(suite) {
    const s = suite.file && this.spans.get(suite.file);
    if (s) s.end = Math.max(s.end, this.now());
  }

  /** The `n` slowest files, slowest first, as printable lines (paths relative to cwd). */
  slowest(n, cwd = process.cwd()) {
    return [...this.spans.entries()]
      .map(([file, s]) => ({ file: path.relative(cwd, file) || file, ms: s.end - s.start }))
      .sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file))
      .slice(0, n)
      .map((f) => `${(f.ms / 1000).toFixed(1).padStart(8)} s  ${f.file}`);
  }
}
module.exports = { FileTimes };
