// "▶ Launch", "▶ Launch as Managed Job" and "▶ Exec on <cluster>" above a task file. The UP clusters come from a callback
// so this file does not depend on how the state store is opened.

import * as vscode from 'vscode';

export class TaskCodeLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly upClusters: () => Promise<string[]>) {}

  /** Call when clusters change state, so the Exec lenses follow. */
  refresh(): void {
    this.changed.fire();
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const top = new vscode.Range(0, 0, 0, 0);
    const lenses = [
      new vscode.CodeLens(top, { title: '▶ Launch', command: 'skydeck.launchTask', arguments: [document.uri] }),
      // Asks before launching (the command's modal): a managed job starts clusters that outlive the window.
      new vscode.CodeLens(top, { title: '▶ Launch as Managed Job', command: 'skydeck.launchManagedJob', arguments: [document.uri] }),
    ];
    let clusters: string[] = [];
    try {
      clusters = await this.upClusters();
    } catch {
      // No state (store failed to open): Launch still works, so show it alone.
    }
    for (const name of clusters) {
      lenses.push(new vscode.CodeLens(top, {
        title: `▶ Exec on ${name}`,
        command: 'skydeck.execTask',
        arguments: [document.uri, name],
      }));
    }
    return lenses;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
