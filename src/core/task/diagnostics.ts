// Building, collecting and printing diagnostics.

import { Document } from 'yaml';
import { Path, SourceMap, Target, offsetsFor } from './positions';
import { printable } from './printable';
import { Diagnostic } from './types';

/** `resources.any_of[0].cpus`, `file_mounts["/data"]`, `envs.HF_TOKEN`. */
export function formatPath(path: Path): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** One line: `file:line:col: severity: message (hint)`, with anything non-printable escaped. */
export function formatDiagnostic(d: Diagnostic): string {
  const hint = d.hint ? ` (${d.hint})` : '';
  return printable(`${d.file}:${d.line}:${d.col}: ${d.severity}: ${d.message}${hint}`);
}

/** A diagnostic not tied to a parsed document (file problems), with its text made printable. */
export function fileDiagnostic(file: string, message: string, hint: string, at: { line: number; col: number } = { line: 1, col: 1 }): Diagnostic {
  return {
    severity: 'error', file, line: at.line, col: at.col, endLine: at.line, endCol: at.col, path: '',
    message: printable(message), hint: printable(hint),
  };
}

/** A value shown in a message: strings quoted and shortened, collections named. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'an empty value';
  if (typeof value === 'string') {
    const short = value.length > 40 ? `${value.slice(0, 37)}...` : value;
    return JSON.stringify(short);
  }
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

export function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return [...list].sort((a, b) => a.line - b.line || a.col - b.col || (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
}

function isPrefix(prefix: Path, path: Path): boolean {
  return prefix.length <= path.length && prefix.every((seg, i) => String(seg) === String(path[i]));
}

/** Collects diagnostics for one document, resolving paths to source positions. */
export class Reporter {
  readonly items: Diagnostic[] = [];
  /** Paths that already have an error; later checks skip them and everything under them. */
  private readonly errorPaths: Path[] = [];

  constructor(
    readonly file: string,
    readonly doc: Document,
    private readonly source: SourceMap,
  ) {}

  report(severity: Diagnostic['severity'], path: Path, message: string, hint?: string, target: Target = 'value'): void {
    const [start, end] = offsetsFor(this.doc, path, target);
    this.add(severity, start, end, formatPath(path), message, hint);
    if (severity === 'error') this.errorPaths.push(path);
  }

  error(path: Path, message: string, hint?: string, target: Target = 'value'): void {
    this.report('error', path, message, hint, target);
  }

  warn(path: Path, message: string, hint?: string, target: Target = 'value'): void {
    this.report('warning', path, message, hint, target);
  }

  /** A diagnostic at explicit offsets (YAML syntax problems). */
  add(severity: Diagnostic['severity'], start: number, end: number, path: string, message: string, hint?: string): void {
    const r = this.source.range(start, end);
    // Messages quote the input (keys, values, the parser's view of bad bytes): make it printable.
    const d: Diagnostic = { severity, file: this.file, ...r, path: printable(path), message: printable(message) };
    if (hint) d.hint = printable(hint);
    this.items.push(d);
  }

  /** True when an error was reported at `path`, inside it, or at one of its parents. */
  hasErrorNear(path: Path): boolean {
    return this.errorPaths.some((p) => isPrefix(p, path) || isPrefix(path, p));
  }

  /** True when an error was reported at `path` or at one of its parents (not inside it). */
  hasErrorAbove(path: Path): boolean {
    return this.errorPaths.some((p) => isPrefix(p, path));
  }
}
