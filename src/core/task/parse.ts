// Entry points: task YAML text or file -> typed tasks + diagnostics. Never throws.

import { open } from 'node:fs/promises';
import { Document, isScalar } from 'yaml';
import { Reporter, describeValue, fileDiagnostic, sortDiagnostics } from './diagnostics';
import { prepareForValidation } from './envs';
import { SourceMap } from './positions';
import { normalizeTask } from './task';
import { Diagnostic, ParseOptions, ParseResult, Task } from './types';
import { validateAgainstSchema } from './validate';
import { parseYamlDocuments, reportSyntax } from './yamlSource';
import { MAX_YAML_DEPTH } from './yamlDepth';

export const DEFAULT_FILE_NAME = '<input>';
/** Expanding aliases beyond this is treated as an attack ("billion laughs"), not a task. */
const MAX_ALIAS_COUNT = 1000;

type Dict = Record<string, unknown>;

/**
 * Larger task files are refused before they are read or parsed (a 64 MB file took seconds and
 * half a GB to parse). The agent takes setup, run and envs of up to 1 MiB each (agentLimits.ts),
 * so a task it would run fits in well under this.
 */
export const MAX_TASK_FILE_BYTES = 4 << 20;
const TOO_LARGE_HINT = 'a task file holds settings and commands; put data and long scripts in files under workdir or file_mounts';
const tooLarge = (size: string) => `the file is ${size}; a task file may be at most ${MAX_TASK_FILE_BYTES >> 20} MiB`;

export function parseTaskText(text: string, file: string = DEFAULT_FILE_NAME, opts: ParseOptions = {}): ParseResult {
  try {
    const source = String(text ?? '');
    // Each UTF-16 unit is at most 3 UTF-8 bytes: only text that may be too large is measured.
    if (source.length * 3 > MAX_TASK_FILE_BYTES) {
      const bytes = Buffer.byteLength(source, 'utf8');
      if (bytes > MAX_TASK_FILE_BYTES) return failed(fileDiagnostic(file, tooLarge(`${bytes.toLocaleString('en-US')} bytes`), TOO_LARGE_HINT));
    }
    return parseUnchecked(source, file, opts);
  } catch (err) {
    // The token tree's depth is checked before anything recurses; this is the backstop.
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      return failed(fileDiagnostic(file, 'the YAML is nested too deeply to read', `no task nests more than ${MAX_YAML_DEPTH} levels; remove the extra nesting`));
    }
    // A bug in Skydeck, not in the task: still answer with a diagnostic instead of throwing.
    const message = err instanceof Error ? err.message : String(err);
    return failed(fileDiagnostic(file, `internal error while reading the task: ${message}`, 'please report this to Skydeck with the file that caused it'));
  }
}

function failed(d: Diagnostic): ParseResult {
  return { tasks: [], diagnostics: [d], ok: false };
}

/** Reads a task file: its size is checked from stat before any of it is read. */
export async function parseTaskFile(path: string, opts: ParseOptions = {}): Promise<ParseResult> {
  let text: string;
  try {
    const fh = await open(path, 'r');
    try {
      const st = await fh.stat();
      if (st.isDirectory()) return failed(fileDiagnostic(path, 'this is a directory, not a task file', 'give the path of a .yaml file'));
      if (st.size > MAX_TASK_FILE_BYTES) return failed(fileDiagnostic(path, tooLarge(`${st.size.toLocaleString('en-US')} bytes`), TOO_LARGE_HINT));
      // A pipe or device reports no size (or the file grew since): never read past the limit.
      let buf = Buffer.alloc(Math.min(MAX_TASK_FILE_BYTES + 1, Math.max(st.size + 1, 1 << 16)));
      let got = 0;
      for (;;) {
        if (got === buf.length) {
          if (buf.length > MAX_TASK_FILE_BYTES) break;
          const bigger = Buffer.alloc(Math.min(MAX_TASK_FILE_BYTES + 1, buf.length * 2));
          buf.copy(bigger);
          buf = bigger;
        }
        const { bytesRead } = await fh.read(buf, got, buf.length - got, null);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      if (got > MAX_TASK_FILE_BYTES) return failed(fileDiagnostic(path, tooLarge(`over ${MAX_TASK_FILE_BYTES.toLocaleString('en-US')} bytes`), TOO_LARGE_HINT));
      text = buf.subarray(0, got).toString('utf8');
    } finally {
      await fh.close();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return failed(fileDiagnostic(path,
      code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'this is a directory, not a task file' : `cannot read the file (${code ?? String(err)})`,
      code === 'ENOENT' ? 'check the path' : code === 'EISDIR' ? 'give the path of a .yaml file' : 'check that the file is readable'));
  }
  return parseTaskText(text, path, opts);
}

function parseUnchecked(text: string, file: string, opts: ParseOptions): ParseResult {
  const { docs, lines, tooDeepAt } = parseYamlDocuments(text.replace(/^\uFEFF/, ''));
  const source = new SourceMap(text, lines);
  if (tooDeepAt !== undefined) {
    const r = new Reporter(file, new Document(), source);
    r.add('error', tooDeepAt, tooDeepAt + 1, '', `the YAML is nested too deeply here (more than ${MAX_YAML_DEPTH} levels of lists and mappings)`,
      'no task nests this deep; remove the extra nesting');
    return finish([], r.items);
  }
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
