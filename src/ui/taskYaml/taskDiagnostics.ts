// Problems for open task YAML files: core's parseTaskText on open and (debounced) on every
// edit, published to the 'skydeck' DiagnosticCollection; cleared when the file closes.

import * as vscode from 'vscode';
import { Diagnostic, parseTaskText } from '../../core/task';
import { diagnosticText, toZeroBasedRange } from './diagnosticRanges';
import { isTaskFileName } from './taskFiles';

/** Long enough to skip most keystrokes, short enough to feel live. */
export const DIAGNOSTICS_DEBOUNCE_MS = 250;

// Real files only: a git diff or SCM view of the same file would show every problem twice.
const SCHEMES = new Set(['file', 'untitled', 'vscode-remote', 'vscode-vfs']);

export function toVscodeDiagnostic(d: Diagnostic): vscode.Diagnostic {
  const r = toZeroBasedRange(d);
  const out = new vscode.Diagnostic(
    new vscode.Range(r.startLine, r.startCharacter, r.endLine, r.endCharacter),
    diagnosticText(d),
    d.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
  );
  out.source = 'skydeck';
  return out;
}

export class TaskDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('skydeck');
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly debounceMs = DIAGNOSTICS_DEBOUNCE_MS) {
    this.subscriptions = [
      vscode.workspace.onDidOpenTextDocument((doc) => this.check(doc)),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
      vscode.workspace.onDidCloseTextDocument((doc) => this.forget(doc.uri)),
    ];
    // Files already open when the extension activated get no open event.
    for (const doc of vscode.workspace.textDocuments) this.check(doc);
  }

  private applies(doc: vscode.TextDocument): boolean {
    return SCHEMES.has(doc.uri.scheme) && isTaskFileName(doc.fileName);
  }

  /** Checks now (open) rather than after the debounce: the file has just appeared. */
  check(doc: vscode.TextDocument): void {
    if (!this.applies(doc)) return;
    this.cancel(doc.uri);
    const result = parseTaskText(doc.getText(), doc.fileName);
    this.collection.set(doc.uri, result.diagnostics.map(toVscodeDiagnostic));
  }

  private schedule(doc: vscode.TextDocument): void {
    if (!this.applies(doc)) return;
    this.cancel(doc.uri);
    const key = doc.uri.toString();
    this.timers.set(key, setTimeout(() => {
      this.timers.delete(key);
      // The document may have closed while we waited.
      if (!doc.isClosed) this.check(doc);
    }, this.debounceMs));
  }

  private cancel(uri: vscode.Uri): void {
    const key = uri.toString();
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
  }

  private forget(uri: vscode.Uri): void {
    this.cancel(uri);
    this.collection.delete(uri);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const s of this.subscriptions) s.dispose();
    this.collection.dispose();
  }
}
