// Core diagnostics (1-based line/col, end exclusive) in the editor's terms (0-based). Kept
// apart from the vscode wrapper so the off-by-one rules are unit-tested in plain Node.

import type { Diagnostic } from '../../core/task';

export interface ZeroBasedRange {
  startLine: number;
  startCharacter: number;
  endLine: number;
  endCharacter: number;
}

/** 1-based [line:col, endLine:endCol) -> 0-based; never negative, never ending before it starts. */
export function toZeroBasedRange(d: Pick<Diagnostic, 'line' | 'col' | 'endLine' | 'endCol'>): ZeroBasedRange {
  const startLine = Math.max(0, d.line - 1);
  const startCharacter = Math.max(0, d.col - 1);
  let endLine = Math.max(0, d.endLine - 1);
  let endCharacter = Math.max(0, d.endCol - 1);
  // An inverted range would make VS Code swap the ends silently; pin it to the start instead.
  if (endLine < startLine || (endLine === startLine && endCharacter < startCharacter)) {
    endLine = startLine;
    endCharacter = startCharacter;
  }
  return { startLine, startCharacter, endLine, endCharacter };
}

/** The Problems-panel text: message, then the hint in parentheses as the CLI prints it. */
export function diagnosticText(d: Pick<Diagnostic, 'message' | 'hint'>): string {
  return d.hint ? `${d.message} (${d.hint})` : d.message;
}
