// The counting reporter: its last line is still the "N passed, N failed" CI reads, and above it
// the slowest test files by wall time with their hooks (a file = all of its suites).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { FileTimes } = require('../../support/fileTimes.cjs') as { FileTimes: new (now: () => number, cpuNs?: () => number | undefined) => FileTimesT };
interface FileTimesT {
  suiteStart(s: { file?: string }): void;
  suiteEnd(s: { file?: string }): void;
  slowest(n: number, cwd?: string): string[];
  heaviest(n: number, cwd?: string): string[];
}

const ROOT = path.resolve(__dirname, '../../..');
const FIX = 'test/fixtures/reporter';

describe('counting reporter: slowest test files', function () {
  this.timeout(60_000);

  it('a file spans its first suite start to its last suite end; the root suite (no file) is not a file', () => {
    let t = 0;
    const ft = new FileTimes(() => t, () => undefined);
    const a = { file: '/r/a.ts' };
    const a2 = { file: '/r/a.ts' };
    const b = { file: '/r/b.ts' };
    ft.suiteStart({}); // root
    ft.suiteStart(a); t = 1000; ft.suiteEnd(a);
    ft.suiteStart(a2); t = 3500; ft.suiteEnd(a2);
    ft.suiteStart(b); t = 4000; ft.suiteEnd(b);
    ft.suiteEnd({});
    assert.deepEqual(ft.slowest(25, '/r'), ['     3.5 s  a.ts', '     0.5 s  b.ts']);
    assert.deepEqual(ft.slowest(1, '/r'), ['     3.5 s  a.ts']);
  });

  it('with a cgroup to read, each file also gets the CPU used between its start and end, and the heaviest come first', () => {
    let t = 0;
    let cpu = 0;
    const ft = new FileTimes(() => t, () => cpu);
    const a = { file: '/r/a.ts' };
    const b = { file: '/r/b.ts' };
    ft.suiteStart(a); t = 3000; cpu = 1e9; ft.suiteEnd(a);
    ft.suiteStart(b); t = 4000; cpu = 5.5e9; ft.suiteEnd(b);
    assert.deepEqual(ft.heaviest(25, '/r'), ['     1.0 s      4.5 cpu-s  b.ts', '     3.0 s      1.0 cpu-s  a.ts']);
    assert.deepEqual(ft.slowest(1, '/r'), ['     3.0 s      1.0 cpu-s  a.ts']);
    const none = new FileTimes(() => t, () => undefined);
    none.suiteStart(a); none.suiteEnd(a);
    assert.deepEqual(none.heaviest(25, '/r'), [], 'not measured: no CPU list');
  });

  it('a real run lists the file whose hook is slow first, and ends with the result line', async () => {
    const out = await new Promise<string>((resolve) => {
      execFile(path.join(ROOT, 'node_modules/.bin/mocha'),
        ['--no-config', '--reporter', './test/support/countingReporter.cjs', `${FIX}/fast.cjs`, `${FIX}/slowHook.cjs`],
        { cwd: ROOT, env: { ...process.env, CI: '', SKYDECK_TEST_CPUACCT: '' } }, (_e, stdout, stderr) => resolve(stdout + stderr));
    });
    const lines = out.trimEnd().split('\n');
    assert.equal(lines.at(-1), '2 passed, 1 failed', out);
    const at = lines.indexOf('slowest test files (wall time, hooks included):');
    assert.ok(at >= 0, out);
    const rows = lines.slice(at + 1, at + 3).map((l) => /^\s+(\d+\.\d) s {2}(\S+)$/.exec(l));
    assert.ok(rows.every(Boolean), out);
    assert.deepEqual(rows.map((m) => m![2]), [`${FIX}/slowHook.cjs`, `${FIX}/fast.cjs`]);
    assert.ok(Number(rows[0]![1]) >= 0.4, `the hook's 400 ms is counted: ${rows[0]![0]}`);
    assert.ok(lines.some((l) => l.startsWith('FAILED: a fast file, second suite fails: on purpose')), out);
  });
});
