import * as vscode from 'vscode';
import { StateStore } from '../core/state';

/**
 * What the UI shares, built once in activate(). The state store opens lazily on first use so
 * activation stays cheap (no WASM load until something needs the state).
 */
export class Services implements vscode.Disposable {
  readonly log = vscode.window.createOutputChannel('Skydeck', { log: true });
  private store: Promise<StateStore> | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {}

  state(): Promise<StateStore> {
    this.store ??= this.openStore();
    return this.store;
  }

  private async openStore(): Promise<StateStore> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    // With no folder open, state lives in the extension's global storage.
    const store = folder
      ? await StateStore.openWorkspace(folder)
      : await StateStore.open(vscode.Uri.joinPath(this.context.globalStorageUri, 'state.db').fsPath);
    for (const n of store.notices) {
      this.log.warn(n.message);
      void vscode.window.showWarningMessage(n.message, 'Reveal Copy').then((pick) => {
        if (pick) void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(n.movedTo));
      });
    }
    return store;
  }

  dispose(): void {
    this.log.dispose();
    void this.store?.then((s) => s.close());
  }
}
