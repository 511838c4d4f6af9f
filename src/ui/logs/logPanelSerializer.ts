import * as vscode from 'vscode';
import type { LogPanelManager } from './logPanelManager';
import { LOGS_VIEW_TYPE } from './protocol';

/** Brings log panels back after a window reload. */
export class LogPanelSerializer implements vscode.WebviewPanelSerializer {
  constructor(private readonly manager: LogPanelManager) {}

  deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    return this.manager.restore(panel, state);
  }
}

export function registerLogPanelSerializer(manager: LogPanelManager): vscode.Disposable {
  return vscode.window.registerWebviewPanelSerializer(LOGS_VIEW_TYPE, new LogPanelSerializer(manager));
}
