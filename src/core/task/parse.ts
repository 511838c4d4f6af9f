// Entry points: task YAML text or file -> typed tasks + diagnostics. Never throws.

import { readFile } from 'node:fs/promises';
import { Document, isScalar } from 'yaml';
import { Reporter, describeValue, sortDiagnostics } from './diagnostics';
import { prepareForValidation } from './envs';
import { SourceMap } from './positions';
import { normalizeTask } from './task';
import { Diagnostic, ParseOptions, ParseResult, Task } from './types';
import { validateAgainstSchema } from './validate';
import { parseYamlDocuments, reportSyntax } from './yamlSource';

export const DEFAULT_FILE_NAME = '<input>';
/** Expanding aliases beyond this is treated as an attack ("billion laughs"), not a task. */
const MAX_ALIAS_COUNT = 1000;

type Dict = Record<string, unknown>;

export function parseTaskText(text: string, file: string = DEFAULT_FILE_NAME, opts: ParseOptions = {}): ParseResult {
  try {
    return parseUnchecked(String(text ?? ''), file, opts);
  } catch (err) {
    // A bug in Skydeck, not in the task: still answer with a diagnostic instead of throwing.
    const message = err instanceof Error ? err.message : String(err);
    const d: Diagnostic = {
      severity: 'error', file, line: 1, col: 1, endLine: 1, endCol: 1, path: '',
      message: `internal error while reading the task: ${message}`,
      hint: 'please report this to Skydeck with the file that caused it',
    };
    return { tasks: [], diagnostics: [d], ok: false };
  }
}

export async function parseTaskFile(path: string, opts: ParseOptions = {}): Promise<ParseResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const d: Diagnostic = {
      severity: 'error', file: path, line: 1, col: 1, endLine: 1, endCol: 1, path: '',
      message: code === 'ENOENT' ? 'file not found' : `cannot read the file (${code ?? String(err)})`,
      hint: code === 'ENOENT' ? 'check the path' : 'check that the file is readable',
    };
    return { tasks: [], diagnostics: [d], ok: false };
  }
  return parseTaskText(text, path, opts);
}

function parseUnchecked(text: string, file: string, opts: ParseOptions): ParseResult {
  const { docs, lines } = parseYamlDocuments(text.replace(/^\uFEFF/, ''));
  const source = new SourceMap(text, lines);
  const diagnostics: Diagnostic[] = [];
  const tasks: Task[] = [];
  const nonEmpty = docs.filter((d) => !isEmptyDocument(d));

  if (nonEmpty.length === 0) {
    const r = new Reporter(file, docs[0] ?? new Document(), source);
    r.add('error', 0, 0, '', 'the file has no task in it', 'add at least a run: command, e.g. run: echo hello');
    return finish(tasks, r.items);
  }
  if (nonEmpty.length > 1) {
    const second = nonEmpty[1];
    const r = new Reporter(file, second, source);
    const start = second.range?.[0] ?? 0;
    r.add('warning', start, Math.min(start + 3, text.length), '',
      `this file has ${nonEmpty.length} YAML documents (a pipeline); launch does not support pipelines yet`,
      'launch each task from its own file');
    diagnostics.push(...r.items);
  }
  docs.forEach((doc, index) => {
    if (!nonEmpty.includes(doc)) return;
    const isHeader = nonEmpty.length > 1 && doc === nonEmpty[0];
    const r = new Reporter(file, doc, source);
    const task = parseDocument(doc, index, text, r, opts, isHeader);
    if (task) tasks.push(task);
    diagnostics.push(...r.items);
  });
  return finish(tasks, diagnostics);
}

/** No content, or only `~` / comments: SkyPilot skips such documents. */
function isEmptyDocument(doc: Document): boolean {
  if (doc.errors.length > 0) return false;
  return doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null);
}

function finish(tasks: Task[], diagnostics: Diagnostic[]): ParseResult {
  const sorted = sortDiagnostics(diagnostics);
  return { tasks, diagnostics: sorted, ok: !sorted.some((d) => d.severity === 'error') };
}

function parseDocument(doc: Document, index: number, text: string, r: Reporter, opts: ParseOptions, mayBeHeader: boolean): Task | undefined {
  if (reportSyntax(doc, text, r)) return undefined;
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    r.error([], `cannot expand the YAML aliases: ${err instanceof Error ? err.message : String(err)}`, 'use fewer aliases (*name)');
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    r.error([], `a task must be a mapping of fields (name:, resources:, run:), got ${describeValue(value)}`,
      'start the document with fields such as run: echo hello');
    return undefined;
  }
  const raw = value as Dict;
  const prepared = prepareForValidation(raw, opts.env);
  if (mayBeHeader) checkPipelineHeader(prepared, r);
  validateAgainstSchema(prepared, r);
  return normalizeTask(prepared, raw, index, r, opts);
}

/**
 * A pipeline may start with a header document holding only `name` and `execution`. `execution`
 * is not a task field, so it is checked here and hidden from the schema.
 */
function checkPipelineHeader(doc: Dict, r: Reporter): void {
  const keys = Object.keys(doc);
  if (!keys.includes('name') || !keys.every((k) => k === 'name' || k === 'execution')) return;
  if (!('execution' in doc)) return;
  const execution = doc.execution;
  delete doc.execution;
  if (execution !== 'serial' && execution !== 'parallel') {
    r.error(['execution'], `execution must be "serial" or "parallel", got ${describeValue(execution)}`, 'pipelines run serially: execution: serial');
  }
}
