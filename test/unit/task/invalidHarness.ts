// Harness for the invalid-document tables: each case lists the exact diagnostics expected
// (severity, 1-based line and column, field path, message, fix hint), in source order.

import assert from 'node:assert/strict';
import { formatDiagnostic, parseTaskText } from '../../../src/core/task';

export type Expected = [severity: 'error' | 'warning', line: number, col: number, path: string, message: string, hint: string];

export interface InvalidCase {
  name: string;
  text: string;
  env?: Record<string, string>;
  expect: Expected[];
}

/** Registers one test per case. */
export function checkCases(cases: InvalidCase[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const result = parseTaskText(c.text, 'task.yaml', c.env ? { env: c.env } : {});
      const actual = result.diagnostics.map((d) => [d.severity, d.line, d.col, d.path, d.message, d.hint ?? '']);
      assert.deepEqual(actual, c.expect);
      assert.equal(result.ok, !c.expect.some((e) => e[0] === 'error'));
      for (const d of result.diagnostics) {
        assert.equal(d.file, 'task.yaml');
        assert.ok(d.endLine > d.line || (d.endLine === d.line && d.endCol >= d.col), `bad range in ${formatDiagnostic(d)}`);
        if (d.severity === 'error') assert.ok(d.hint && d.hint.length > 0, `no hint: ${formatDiagnostic(d)}`);
      }
    });
  }
}

export const errorCount = (cases: InvalidCase[]): number => cases.filter((c) => c.expect.some((e) => e[0] === 'error')).length;
