// Shared helpers for the task YAML tests.

import assert from 'node:assert/strict';
import { Diagnostic, ParseResult, Resources, Task, parseTaskText } from '../../../src/core/task';

export function parse(text: string, env?: Record<string, string>): ParseResult {
  return parseTaskText(text, 'task.yaml', env ? { env } : {});
}

/** Parses a one-document task that must have no diagnostics at all. */
export function task(text: string): Task {
  const r = parse(text);
  assert.deepEqual(r.diagnostics, [], r.diagnostics.map((d) => d.message).join('\n'));
  assert.equal(r.tasks.length, 1);
  return r.tasks[0];
}

/** The resources of a task whose `resources:` body is `yamlBody` (indented two spaces). */
export function resources(yamlBody: string): Resources {
  return task(`resources:\n${yamlBody}`).resources;
}

/** Warnings as `line:col message`. */
export const warnings = (r: ParseResult): string[] =>
  r.diagnostics.filter((d: Diagnostic) => d.severity === 'warning').map((d) => `${d.line}:${d.col} ${d.message}`);
