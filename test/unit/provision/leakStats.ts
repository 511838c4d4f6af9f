// Figures for scripts/test-leaks.mjs: each provision test appends one JSON line to the file
// named by LEAKS_SUMMARY (when set), which the script adds up.
import * as fs from 'node:fs';
import { leaks, type Harness } from '../../support/fakeCloud/harness';

export function recordStat(stat: Record<string, unknown>): void {
  const file = process.env.LEAKS_SUMMARY;
  if (file) fs.appendFileSync(file, JSON.stringify(stat) + '\n');
}

/** A scenario's afterEach: records its outcome and leaks for test:leaks, then frees the harness. */
export async function endScenario(test: Mocha.Test | undefined, h: Harness | undefined): Promise<void> {
  if (!h) return;
  recordStat({ kind: 'scenario', title: test?.title, passed: test?.state === 'passed', leaks: (await leaks(h)).length });
  h.dispose();
}
