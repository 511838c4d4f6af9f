// Test runner inside the VS Code extension host (the extensionTestsPath entry, compiled to
// out/vscode-test/suite/index.js by scripts/vscode-test/build-tests.mjs). The host calls run()
// once the workbench is up; a rejected promise means a failed run (exit code 1).
//
// Output goes through ./log.ts (console.log, marked for the code-server launcher, which prints
// it from the workbench page's console). The last line is the plain total CI counts:
// "N passed, N failed[, N skipped]" (same format as test/support/countingReporter.cjs).
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import { inCi } from '../../../scripts/ci.mjs';
import { log, logError } from './log';

export function run(): Promise<void> {
  // Mocha's reporters print through Base.consoleLog (console.log captured when mocha loaded).
  (Mocha.reporters.Base as unknown as { consoleLog: typeof log }).consoleLog = log;
  return runMocha();
}

function runMocha(): Promise<void> {
  Mocha.reporters.Base.useColors = false;
  const mocha = new Mocha({
    ui: 'bdd',
    reporter: 'spec',
    color: false,
    timeout: Number(process.env.SKYDECK_TEST_MOCHA_TIMEOUT_MS || 30_000),
    slow: 2_000,
    forbidOnly: inCi(), // an it.only left in must not pass CI with the other tests unrun
  });
  const grep = process.env.SKYDECK_TEST_GREP;
  if (grep) mocha.grep(grep);

  // bench/ui.ts runs the figure-only files (*.bench) in their own host; a test run never does.
  const suffix = process.env.SKYDECK_TEST_BENCH === '1' ? '.bench.js' : '.test.js';
  for (const f of testFiles(__dirname, suffix)) mocha.addFile(f);

  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        const s = runner.stats ?? { passes: 0, failures, pending: 0 };
        const skipped = s.pending ? `, ${s.pending} skipped` : '';
        // A run that found no test is a failure, not a pass.
        const none = s.passes + s.failures + s.pending === 0;
        log(`\n${s.passes} passed, ${s.failures + (none ? 1 : 0)} failed${skipped}`);
        if (none) reject(new Error(`no test files found next to ${__dirname}`));
        else if (failures > 0) reject(new Error(`${failures} test(s) failed`));
        else resolve();
      });
    } catch (e) {
      logError(e);
      log('\n0 passed, 1 failed');
      reject(e);
    }
  });
}

function testFiles(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...testFiles(p, suffix));
    else if (e.name.endsWith(suffix)) out.push(p);
  }
  return out.sort();
}
