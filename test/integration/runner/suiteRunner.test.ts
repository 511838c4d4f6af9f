// The runner behind `npm test` (scripts/run-tests.mjs → suiteRunner.mjs, testSuites.mjs) against
// real child processes: a suite that hangs, leaks a handle or leaves processes is ended with
// its whole process group and counted failed by name; under CI an it.only fails the run.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runSuite } from '../../../scripts/suiteRunner.mjs';
import { MOCHA_ALL, mochaAlone, testSuites } from '../../../scripts/testSuites.mjs';
import { isAlive } from '../../../scripts/procTree.mjs';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURES = path.join(__dirname, 'fixtures');

describe('test runner: suites that hang, leak or cheat', function () {
  this.timeout(60_000);
  let dir: string;
  const started: number[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-runner-'));
  });
  afterEach(() => {
    // Whatever a failed assertion left running (only processes these tests started).
    for (const pid of started.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs a fixture as a suite; returns its counts, the runner's lines and the fixture child's pid. */
  async function run(fixture: string, limits: { timeoutMs?: number; exitAfterResultMs?: number }) {
    const pidFile = path.join(dir, 'pid');
    const lines: string[] = [];
    const r = await runSuite(
      { name: `fixture ${fixture}`, cmd: process.execPath, args: [path.join(FIXTURES, fixture), pidFile], ...limits },
      { log: (l) => lines.push(l), output: () => {}, graceMs: 1000 },
    );
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    started.push(pid);
    return { r, lines: lines.join('\n'), pid };
  }

  it('issue 14.8: a suite that prints its result but keeps a handle open is ended and counted failed, by name', async () => {
    const { r, lines, pid } = await run('leaky.mjs', { exitAfterResultMs: 1000 });
    assert.deepEqual([r.passed, r.failed], [1, 1], lines);
    assert.match(lines, /suite "fixture leaky\.mjs" printed its result but did not exit/);
    assert.equal(isAlive(pid), false, 'the child in its process group was ended too');
  });

  it('issue 14.8: a suite over its time limit is ended with its process group and counted failed', async () => {
    // (Long enough for node to start and write the pid file on a loaded machine.)
    const { r, lines, pid } = await run('hangs.mjs', { timeoutMs: 15_000 });
    assert.deepEqual([r.passed, r.failed], [0, 1], lines);
    assert.match(lines, /suite "fixture hangs\.mjs" did not finish within/);
    assert.equal(isAlive(pid), false);
  });

  it('issue 14.8: a suite that exits but leaves a process of its group running fails, and the process is ended', async () => {
    const { r, lines, pid } = await run('orphan.mjs', {});
    assert.deepEqual([r.passed, r.failed], [1, 1], lines);
    assert.match(lines, /suite "fixture orphan\.mjs" left 1 process\(es\) running/);
    assert.equal(isAlive(pid), false);
  });

  it('issue 14.8: under CI every mocha suite of npm test runs --forbid-only, and an it.only then fails it', async () => {
    const mochaSuites = testSuites({ ci: true }).filter((s) => s.args.includes('mocha'));
    assert.ok(mochaSuites.length >= 2);
    for (const s of mochaSuites) assert.ok(s.args.includes('--forbid-only'), `${s.name}: ${s.args.join(' ')}`);
    assert.ok(testSuites({ ci: false }).every((s) => !s.args.includes('--forbid-only')), 'a developer may still focus a test');

    const only = path.join(FIXTURES, 'only.fixture.ts');
    const suite = (ci: boolean) => ({ name: `it.only, CI ${ci}`, cmd: 'npx', args: [...mochaAlone(ci), only], cwd: ROOT });
    const lines: string[] = [];
    const out: Buffer[] = [];
    const underCi = await runSuite(suite(true), { log: (l) => lines.push(l), output: (d) => out.push(d), errors: (d) => out.push(d) });
    assert.equal(underCi.passed, 0, lines.join('\n'));
    assert.match(Buffer.concat(out).toString(), /forbid|exclusiv/i, 'mocha says why');
    assert.ok(underCi.failed >= 1);
    const dev = await runSuite(suite(false), { log: () => {}, output: () => {}, errors: () => {} });
    assert.deepEqual([dev.passed, dev.failed], [1, 0], 'without CI the focused test runs alone');
  });

  it('a failed test is named on one FAILED: line just above the result line, and the runner gathers it', async () => {
    const fails = path.join(FIXTURES, 'fails.fixture.ts');
    const out: Buffer[] = [];
    const r = await runSuite(
      { name: 'one failure', cmd: 'npx', args: [...mochaAlone(false), fails], cwd: ROOT },
      { log: () => {}, output: (d) => out.push(d), errors: () => {} },
    );
    assert.deepEqual([r.passed, r.failed], [1, 1]);
    // The message's first lines and the failing line of the test file: enough to tell which check broke.
    const line = /^FAILED: fixture suite fails on purpose: one is not two ⏎ second line ⏎ 1 !== 2 \(test\/integration\/runner\/fixtures\/fails\.fixture\.ts:6:\d+\)$/;
    assert.equal(r.failures.length, 1);
    assert.match(r.failures[0], line);
    const tail = Buffer.concat(out).toString().trimEnd().split('\n').slice(-3);
    assert.deepEqual(tail.slice(1), ['', '1 passed, 1 failed']);
    assert.match(tail[0], line);
  });

  it('the two mocha parts of npm test split the unit + integration tree: every file runs in exactly one; every kit file and every dist/ reader in part 1', async () => {
    const mochaSuites = testSuites({ ci: false }).filter((s) => s.args[0] === 'mocha' && !s.args.includes('--no-config'));
    assert.equal(mochaSuites.length, 2, mochaSuites.map((s) => s.name).join(', '));
    // Mocha's own file collection (globs, --ignore), as each part's command line asks it; paths from the repo root.
    // (mocha's internal module, untyped)
    const collect = require('mocha/lib/cli/collect-files.js') as (o: object) => { files: string[] };
    const files = (args: string[]) => {
      const ignore = args.flatMap((a, i) => (args[i - 1] === '--ignore' ? [a] : []));
      const spec = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--ignore' && a !== 'mocha');
      const cwd = process.cwd();
      process.chdir(ROOT);
      try {
        return collect({ ignore, extension: ['ts'], file: [], recursive: false, sort: false, spec }).files.map((f) => path.relative(ROOT, f));
      } finally {
        process.chdir(cwd);
      }
    };
    const [one, two] = mochaSuites.map((s) => files(s.args));
    const all = files(MOCHA_ALL).sort();
    assert.ok(all.length > 100, `${all.length} files`);
    assert.ok(one.length > 5 && two.length > 50, `${one.length} + ${two.length} files`);
    assert.deepEqual([...one, ...two].sort(), all, 'each file of the tree in exactly one part');
    const kitFiles = all.filter((f) => /\buseKit\(|support\/k8sKit'|support\/kubeFaults\/|support\/kitKubelet'/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
    assert.ok(kitFiles.length >= 5, kitFiles.join(' '));
    assert.deepEqual(kitFiles.filter((f) => !one.includes(f)), [], 'one kit per machine: every kit file in part 1');
    const distReaders = all.filter((f) => /['"`]dist['"`/]/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
    assert.ok(distReaders.length >= 2, distReaders.join(' '));
    assert.deepEqual(distReaders.filter((f) => !one.includes(f)), [], 'every file that reads dist/ in part 1');
    // The VS Code suite (it rebuilds dist/) runs after part 1 in part 1's lane, never alongside it.
    const suites = testSuites({ ci: false });
    const vscode = suites.find((s) => s.args.includes('scripts/vscode-test/run-all.mjs'))!;
    assert.equal(vscode.lane, mochaSuites[0].lane);
    assert.ok(suites.indexOf(vscode) > suites.indexOf(mochaSuites[0]), 'after part 1');
    assert.notEqual(mochaSuites[0].lane, mochaSuites[1].lane);
  });

  it('issue 14.8: every suite of npm test has a time limit, and the mocha ones must exit soon after their result', () => {
    for (const s of testSuites({ ci: true })) {
      assert.ok(Number(s.timeoutMs) > 0, s.name);
      if (s.args.includes('mocha')) assert.ok(Number(s.exitAfterResultMs) > 0, s.name);
    }
  });
});
